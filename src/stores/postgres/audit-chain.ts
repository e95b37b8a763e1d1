/**
 * @module stores/postgres/audit-chain
 * {@link AuditChain} on PostgreSQL: integrated events in the text forms their leaves were computed from
 * (`detail::text`, which `leafOfColumns` reads back as JSON, and ISO-8601 times with milliseconds through
 * `tollgate_chain_time`), the request fields a `created` row covers, receipts, checkpoints and the integrator's backlog.
 */
import type { AuditChain, ChainCheckpoint, ChainHead, ChainRow } from '../../audit/types.js';
import type { Receipt, SignedCheckpoint } from '../../audit/witness.js';
import { GRANT_EVENT_TYPES, grantAudits, type GrantAudit, type GrantEventRow } from '../../audit/witnessed-grants.js';
import type { SignedRowAudit } from '../../audit/witnessed-rows.js';
import { PostgresAwayStore } from './away-store.js';
import { GRANT_EVENTS } from './grant-store.js';
import { PostgresTokenStore } from './token-store.js';
import type { CheckpointKind } from '../../audit/leaf.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/**
 * Integrated events after seq `$1`, up to `$2` of them, in SQLite's `CHAIN_ROWS` column order (shared with `tollgate
 * prune`, which walks the same rows).
 */
export const CHAIN_ROWS = `SELECT e.seq, e.id, e.prev_hash, e.hash, e.leaf, e.receipt_id, e.request_id, e.type, e.actor, e.channel, e.detail::text,
    tollgate_chain_time(e.at), r.tool_name, r.args_sha256, r.required_approvals::text, r.on_timeout, tollgate_chain_time(r.created_at),
    tollgate_chain_time(r.expires_at), r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.seq > $1 ORDER BY e.seq LIMIT $2`;

/** Events waiting for the integrator, and the oldest one's time (ISO). */
export const BACKLOG = `SELECT count(*)::int AS events, tollgate_chain_time(min(at)) AS "oldestAt" FROM confirmation_events WHERE seq IS NULL`;

/** `CHAIN_ROWS`'s rows as {@link ChainRow}s: `pg` reads bigints as strings. */
export function chainRowsOf(rows: unknown[][]): ChainRow[] {
  return rows.map((r) => [Number(r[0]), Number(r[1]), ...r.slice(2)] as ChainRow);
}

/** The newest prune checkpoint (`audit_checkpoints`), shared with `tollgate prune`. */
export async function pruneCheckpoint(pool: Pick<OpenPostgres, 'pool'>['pool']): Promise<ChainCheckpoint | null> {
  const { rows } = await pool.query<{
    event_id: string;
    hash: string;
    at: string;
    signature: string;
    pruned_before: Date;
  }>('SELECT event_id, hash, at, signature, pruned_before FROM audit_checkpoints ORDER BY event_id DESC LIMIT 1');
  const r = rows[0];
  return r
    ? {
        eventId: Number(r.event_id),
        hash: r.hash,
        at: r.at,
        signature: r.signature,
        prunedBefore: r.pruned_before.toISOString(),
      }
    : null;
}

/** The audit trail of one PostgreSQL database. */
export class PostgresAuditChain implements AuditChain {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  private async query<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
    return withPostgresErrors(async () => (await this.open.pool.query<T>(text, values)).rows);
  }

  async rows(afterSeq: number, limit: number): Promise<ChainRow[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<unknown[]>({ text: CHAIN_ROWS, values: [afterSeq, limit], rowMode: 'array' }),
    );
    return chainRowsOf(rows);
  }

  async receipts(ids: readonly string[]): Promise<Receipt[]> {
    const rows = await this.query<{ id: string; kid: string; at: string; leaves: string; signature: string }>(
      'SELECT id, kid, at, leaves, signature FROM audit_receipts WHERE id = ANY($1::text[])',
      [ids],
    );
    return rows.map((r) => ({ ...r, leaves: r.leaves ? r.leaves.split(',') : [] }));
  }

  async receiptCount(): Promise<number> {
    const [row] = await this.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_receipts');
    return row!.n;
  }

  async receiptIds(afterId: string, limit: number): Promise<string[]> {
    // COLLATE "C": the same byte order as SQLite's, whatever the database's collation.
    const rows = await this.query<{ id: string }>(
      'SELECT id FROM audit_receipts WHERE id COLLATE "C" > $1 ORDER BY id COLLATE "C" LIMIT $2',
      [afterId, limit],
    );
    return rows.map((r) => r.id);
  }

  async awaitsIntegration(id: string): Promise<boolean> {
    // The pending index (`seq IS NULL`) holds a handful of rows: no index on receipt_id is needed.
    const rows = await this.query('SELECT 1 FROM confirmation_events WHERE seq IS NULL AND receipt_id = $1 LIMIT 1', [
      id,
    ]);
    return rows.length > 0;
  }

  async checkpoints(afterN: number, limit: number): Promise<SignedCheckpoint[]> {
    const rows = await this.query<{
      n: number;
      size: string;
      head: string;
      at: string;
      kind: string;
      kid: string;
      signature: string;
    }>('SELECT n, size, head, at, kind, kid, signature FROM chain_checkpoints WHERE n > $1 ORDER BY n LIMIT $2', [
      afterN,
      limit,
    ]);
    return rows.map((r) => ({ ...r, size: Number(r.size), kind: r.kind as CheckpointKind }));
  }

  async lastIdUpTo(size: number): Promise<number | null> {
    const [row] = await this.query<{ id: string | null }>(
      'SELECT max(id) AS id FROM confirmation_events WHERE seq IS NOT NULL AND seq <= $1',
      [size],
    );
    return row?.id == null ? null : Number(row.id);
  }

  async pending(): Promise<{ events: number; oldestAt: string | null }> {
    const [row] = await this.query<{ events: number; oldestAt: string | null }>(BACKLOG);
    return row!;
  }

  async lastBefore(at: Date) {
    const [row] = await this.query<{ seq: string; hash: string }>(
      'SELECT seq, hash FROM confirmation_events WHERE seq IS NOT NULL AND at < $1 ORDER BY seq DESC LIMIT 1',
      [at],
    );
    return row ? { seq: Number(row.seq), hash: row.hash } : null;
  }

  async head(): Promise<ChainHead | null> {
    const [row] = await this.query<{ seq: string; hash: string; at: string }>(
      'SELECT e.seq, e.hash, tollgate_chain_time(e.at) AS at FROM chain_head h JOIN confirmation_events e ON e.seq = h.size WHERE h.id = 1',
    );
    return row ? { eventId: Number(row.seq), hash: row.hash, at: row.at } : null;
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    return withPostgresErrors(() => pruneCheckpoint(this.open.pool));
  }

  async grants(afterId: string, limit: number): Promise<GrantAudit[]> {
    const rows = await this.query<GrantAudit['grant']>(
      `SELECT id, rule, label, scope, request_id AS "requestId", created_by AS "createdBy", expires_at AS "expiresAt",
         revoked_at IS NOT NULL AS revoked FROM grants WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    if (!rows.length) return [];
    const events = await this.query<GrantEventRow>(GRANT_EVENTS, [rows.map((r) => r.id), GRANT_EVENT_TYPES]);
    return grantAudits(rows, events);
  }

  async signedRows(kind: SignedRowAudit['kind'], afterId: string, limit: number): Promise<SignedRowAudit[]> {
    return kind === 'away'
      ? new PostgresAwayStore(this.open).audits(Number(afterId || 0), limit)
      : new PostgresTokenStore(this.open).audits(afterId, limit);
  }
}
