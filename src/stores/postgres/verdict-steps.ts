/**
 * @module stores/postgres/verdict-steps
 * The steps of a vote's or a finish's transaction on PostgreSQL, each run on the transaction's client: lock the row
 * (reading the deadline clock's time with it), flip it to its verdict, expire it instead when the vote or cancel came
 * at or after its deadline, and record the event. `PostgresConfirmationStore.decide` and `finish` run them in turn;
 * {@link verdictParams} is shared with the one-statement settle, which needs no transaction.
 */
import type pg from 'pg';
import { rowToRequest, type RequestRow } from './rows.js';
import { named, rowsOf, SQL_TEXT, type Queryable } from './statements.js';
import { isAllowed } from '../../requests/state-machine.js';
import type { ConfirmationRequest, NewEvent, RequestStatus } from '../../requests/types.js';
import type { VerdictFields } from '../../requests/vote-plan.js';

/**
 * Locks the row for a vote or a cancel, and reads the deadline clock's time in the same statement: `deadlineNow` is
 * the caller's time, or null for the database's `now()`.
 */
export async function lockForVote(
  client: pg.PoolClient,
  id: string,
  deadlineNow: Date | null,
): Promise<{ current: ConfirmationRequest; now: Date } | null> {
  const [row] = await rowsOf<RequestRow & { deadlineNow: Date }>(client, SQL_TEXT.byIdForVote, [id, deadlineNow]);
  if (!row) return null;
  const { deadlineNow: now, ...request } = row;
  return { current: rowToRequest(request), now };
}

/** Expires `current` (locked, pending, past its deadline) inside the caller's transaction, with its `expired` event. */
export async function expireLate(
  client: pg.PoolClient,
  current: ConfirmationRequest,
  now: Date,
): Promise<ConfirmationRequest> {
  const expired = await flip(client, current.id, 'expired', current, {
    respondedBy: 'system',
    respondedVia: null,
    at: now,
  });
  const detail = { on_timeout: current.onTimeout, late_by_ms: now.getTime() - current.expiresAt.getTime() };
  await insertEvent(client, current.id, { type: 'expired', actor: 'system', channel: null, detail, at: now });
  return expired;
}

/** The compare-and-set, inside a transaction that holds the row locked as pending, so it always matches. */
export async function flip(
  client: pg.PoolClient,
  id: string,
  status: 'approved' | 'denied' | 'expired' | 'cancelled',
  current: ConfirmationRequest,
  f: VerdictFields,
): Promise<ConfirmationRequest> {
  const [row] = await rowsOf<RequestRow>(client, SQL_TEXT.flip, verdictParams(id, status, f, current.onTimeout));
  if (!row) throw new Error(`compare-and-set lost on ${id} inside its own transaction`);
  return rowToRequest(row);
}

/** Records `e` in the request's audit trail, on the pool or inside the caller's transaction. */
export async function insertEvent(on: Queryable, requestId: string, e: NewEvent): Promise<void> {
  await on.query(named(SQL_TEXT.insertEvent, [requestId, e.type, e.actor, e.channel, JSON.stringify(e.detail), e.at]));
}

/** The parameters `flip` and `settle` share. A vote's verdict is allowed when approved; only an expiry reads `onTimeout`. */
export function verdictParams(
  id: string,
  status: RequestStatus,
  f: VerdictFields,
  onTimeout: ConfirmationRequest['onTimeout'] = 'deny',
): unknown[] {
  const approvedArgs = f.approvedArgs === undefined || f.approvedArgs === null ? null : JSON.stringify(f.approvedArgs);
  return [
    id,
    status,
    f.at,
    f.respondedBy,
    f.respondedVia,
    f.decisionOption ?? null,
    f.reason ?? null,
    approvedArgs,
    isAllowed(status, onTimeout) === true,
    f.respondedByPerson ?? null,
    f.onBehalfOf ?? null,
  ];
}
