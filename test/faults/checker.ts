/**
 * After the faults: what the database holds, compared with what the gateway acknowledged ({@link Ledger}).
 */
import type pg from 'pg';
import type { Ledger } from './load.js';

/** The checker's findings; every list must be empty. */
export interface Findings {
  requests: number;
  missingCreates: string[];
  wrongVerdicts: string[];
  twoVerdicts: string[];
  verdictsAfterDeadline: string[];
  overduePending: string[];
  waitsWithoutVerdict: string[];
  waitsDisagreeing: string[];
  expired: number;
  /** How late `expired` events were written after the deadline, p99 in ms. */
  latenessP99Ms: number;
}

const FINAL = ['approved', 'denied', 'expired', 'cancelled'];

/** Reads every request and final event of the test database and checks them against the ledger. */
export async function check(client: pg.Client, ledger: Ledger): Promise<Findings> {
  const rows = (
    await client.query<{ id: string; status: string; expires_at: Date }>(
      'SELECT id, status, expires_at FROM confirmation_requests',
    )
  ).rows;
  const events = (
    await client.query<{ request_id: string; type: string; at: Date }>(
      'SELECT request_id, type, at FROM confirmation_events WHERE type = ANY($1)',
      [FINAL],
    )
  ).rows;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const finals = new Map<string, { type: string; at: Date }[]>();
  for (const e of events) finals.set(e.request_id, [...(finals.get(e.request_id) ?? []), e]);
  const now = Date.now();
  const lateness = events
    .filter((e) => e.type === 'expired')
    .map((e) => e.at.getTime() - byId.get(e.request_id)!.expires_at.getTime())
    .sort((a, b) => a - b);
  return {
    requests: rows.length,
    missingCreates: [...ledger.created.keys()].filter((id) => !byId.has(id)),
    wrongVerdicts: [...ledger.verdicts]
      .filter(([id, status]) => byId.get(id)?.status !== status)
      .map(([id, status]) => `${id}: acknowledged ${status}, stored ${byId.get(id)?.status}`),
    twoVerdicts: [...finals]
      .filter(([, list]) => list.length > 1)
      .map(([id, list]) => `${id}: ${list.map((e) => e.type).join(', ')}`),
    verdictsAfterDeadline: events
      .filter((e) => e.type !== 'expired' && e.type !== 'cancelled' && e.at > byId.get(e.request_id)!.expires_at)
      .map((e) => `${e.request_id}: ${e.type} at ${e.at.toISOString()}`),
    overduePending: rows.filter((r) => r.status === 'pending' && r.expires_at.getTime() < now).map((r) => r.id),
    waitsWithoutVerdict: [...ledger.waits].filter(([, w]) => w.final === null).map(([id]) => id),
    waitsDisagreeing: [...ledger.waits]
      .filter(([id, w]) => w.final !== null && w.final !== byId.get(id)?.status)
      .map(([id, w]) => `${id}: long-poll said ${w.final}, stored ${byId.get(id)?.status}`),
    expired: lateness.length,
    latenessP99Ms: lateness.length ? lateness[Math.min(lateness.length - 1, Math.floor(lateness.length * 0.99))]! : 0,
  };
}
