/**
 * @module stores/sqlite/audit-chain
 * {@link AuditChain} on SQLite: integrated events with their stored text and the request fields a `created` row
 * covers, receipts, checkpoints and the integrator's backlog.
 */
import type Database from 'better-sqlite3';
import type { AuditChain, ChainCheckpoint, ChainHead, ChainRow } from '../../audit/types.js';
import type { Receipt, SignedCheckpoint } from '../../audit/witness.js';
import { grantAudits, type GrantAudit, type GrantEventRow } from '../../audit/witnessed-grants.js';
import type { SignedRowAudit } from '../../audit/witnessed-rows.js';
import { SqliteAwayStore } from './away-store.js';
import { GRANT_EVENTS } from './grant-store.js';
import { SqliteTokenStore } from './token-store.js';

/** Integrated events after seq `?`, up to `?` of them (shared with `tollgate prune`, which walks the same rows). */
export const CHAIN_ROWS = `SELECT e.seq, e.id, e.prev_hash, e.hash, e.leaf, e.receipt_id, e.request_id, e.type, e.actor, e.channel, e.detail, e.at,
    r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.seq > ? ORDER BY e.seq LIMIT ?`;

/** A stored receipt row as a {@link Receipt}. */
export function receiptOf(row: { id: string; kid: string; at: string; leaves: string; signature: string }): Receipt {
  return { ...row, leaves: row.leaves ? row.leaves.split(',') : [] };
}

/** The audit trail of one SQLite file. */
export class SqliteAuditChain implements AuditChain {
  constructor(private readonly sqlite: Database.Database) {}

  async rows(afterSeq: number, limit: number): Promise<ChainRow[]> {
    return this.sqlite.prepare(CHAIN_ROWS).raw().all(afterSeq, limit) as ChainRow[];
  }

  async receipts(ids: readonly string[]): Promise<Receipt[]> {
    const rows = this.sqlite
      .prepare('SELECT id, kid, at, leaves, signature FROM audit_receipts WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids)) as Parameters<typeof receiptOf>[0][];
    return rows.map(receiptOf);
  }

  async receiptCount(): Promise<number> {
    return this.sqlite.prepare('SELECT count(*) FROM audit_receipts').pluck().get() as number;
  }

  async receiptIds(afterId: string, limit: number): Promise<string[]> {
    return this.sqlite
      .prepare('SELECT id FROM audit_receipts WHERE id > ? ORDER BY id LIMIT ?')
      .pluck()
      .all(afterId, limit) as string[];
  }

  async awaitsIntegration(id: string): Promise<boolean> {
    // The pending index (`seq IS NULL`) holds a handful of rows: no index on receipt_id is needed.
    return (
      this.sqlite.prepare('SELECT 1 FROM confirmation_events WHERE seq IS NULL AND receipt_id = ? LIMIT 1').get(id) !==
      undefined
    );
  }

  async checkpoints(afterN: number, limit: number): Promise<SignedCheckpoint[]> {
    return this.sqlite
      .prepare('SELECT n, size, head, at, kind, kid, signature FROM chain_checkpoints WHERE n > ? ORDER BY n LIMIT ?')
      .all(afterN, limit) as SignedCheckpoint[];
  }

  async lastIdUpTo(size: number): Promise<number | null> {
    return (
      (this.sqlite
        .prepare('SELECT max(id) FROM confirmation_events WHERE seq IS NOT NULL AND seq <= ?')
        .pluck()
        .get(size) as number | null) ?? null
    );
  }

  async pending() {
    return this.sqlite
      .prepare('SELECT count(*) AS events, min(at) AS oldestAt FROM confirmation_events WHERE seq IS NULL')
      .get() as { events: number; oldestAt: string | null };
  }

  async lastBefore(at: Date) {
    return (
      (this.sqlite
        .prepare('SELECT seq, hash FROM confirmation_events WHERE seq IS NOT NULL AND at < ? ORDER BY seq DESC LIMIT 1')
        .get(at.toISOString()) as { seq: number; hash: string } | undefined) ?? null
    );
  }

  async head(): Promise<ChainHead | null> {
    const row = this.sqlite
      .prepare(
        'SELECT e.seq AS eventId, e.hash, e.at FROM chain_head h JOIN confirmation_events e ON e.seq = h.size WHERE h.id = 1',
      )
      .get() as ChainHead | undefined;
    return row ?? null;
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    const row = this.sqlite
      .prepare(
        'SELECT event_id AS eventId, hash, at, signature, pruned_before AS prunedBefore FROM audit_checkpoints ORDER BY event_id DESC LIMIT 1',
      )
      .get() as ChainCheckpoint | undefined;
    return row ?? null;
  }

  async grants(afterId: string, limit: number): Promise<GrantAudit[]> {
    const rows = this.sqlite
      .prepare(
        'SELECT id, rule, label, scope, request_id AS requestId, created_by AS createdBy, expires_at AS expiresAt, revoked_at IS NOT NULL AS revoked FROM grants WHERE id > ? ORDER BY id LIMIT ?',
      )
      .all(afterId, limit) as { scope: string; expiresAt: string; revoked: number; id: string }[];
    if (!rows.length) return [];
    const events = this.sqlite.prepare(GRANT_EVENTS).all(JSON.stringify(rows.map((r) => r.id))) as GrantEventRow[];
    return grantAudits(
      rows.map(
        (r) =>
          ({
            ...r,
            scope: JSON.parse(r.scope) as Record<string, unknown>,
            expiresAt: new Date(r.expiresAt),
            revoked: r.revoked === 1,
          }) as GrantAudit['grant'],
      ),
      events,
    );
  }

  async signedRows(kind: SignedRowAudit['kind'], afterId: string, limit: number): Promise<SignedRowAudit[]> {
    return kind === 'away'
      ? new SqliteAwayStore(this.sqlite).audits(Number(afterId || 0), limit)
      : new SqliteTokenStore(this.sqlite).audits(afterId, limit);
  }
}
