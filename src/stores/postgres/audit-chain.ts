/**
 * @module stores/postgres/audit-chain
 * {@link AuditChain} on PostgreSQL: the event rows in the text forms the chain's trigger hashed (`detail::text`, ISO
 * times through `tollgate_chain_time`), and the request fields a `created` row covers.
 */
import type { AuditChain, ChainCheckpoint, ChainHead, ChainRow } from '../../audit/types.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** Chain rows after `$1`, up to `$2` of them (shared with `tollgate prune`, which walks the same rows). */
export const CHAIN_ROWS = `SELECT e.id, e.prev_hash, e.hash, e.request_id, e.type, e.actor, e.channel, e.detail::text, tollgate_chain_time(e.at),
    r.tool_name, r.args_sha256, r.required_approvals::text, r.on_timeout, tollgate_chain_time(r.created_at), tollgate_chain_time(r.expires_at),
    r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.id > $1 ORDER BY e.id LIMIT $2`;

/** The audit chain of one PostgreSQL database. */
export class PostgresAuditChain implements AuditChain {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async rows(afterId: number, limit: number): Promise<ChainRow[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<unknown[]>({ text: CHAIN_ROWS, values: [afterId, limit], rowMode: 'array' }),
    );
    return rows.map((r) => [Number(r[0]), ...r.slice(1)] as ChainRow);
  }

  async lastBefore(at: Date) {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ id: string; hash: string | null }>(
        'SELECT id, hash FROM confirmation_events WHERE at < $1 ORDER BY id DESC LIMIT 1',
        [at],
      ),
    );
    return rows[0] ? { id: Number(rows[0].id), hash: rows[0].hash } : null;
  }

  async head(): Promise<ChainHead | null> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ id: string; hash: string; at: string }>(
        'SELECT id, hash, tollgate_chain_time(at) AS at FROM confirmation_events ORDER BY id DESC LIMIT 1',
      ),
    );
    return rows[0] ? { eventId: Number(rows[0].id), hash: rows[0].hash, at: rows[0].at } : null;
  }

  async started() {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ event_id: string; at: Date }>(
        "SELECT event_id, at FROM audit_marks WHERE name = 'chain_started'",
      ),
    );
    return rows[0] ? { eventId: Number(rows[0].event_id), at: rows[0].at } : null;
  }

  async coverage() {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ event_id: string; at: Date }>(
        "SELECT event_id, at FROM audit_marks WHERE name = 'coverage_started'",
      ),
    );
    return rows[0] ? { eventId: Number(rows[0].event_id), at: rows[0].at } : null;
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ event_id: string; hash: string; at: string; signature: string; pruned_before: Date }>(
        'SELECT event_id, hash, at, signature, pruned_before FROM audit_checkpoints ORDER BY event_id DESC LIMIT 1',
      ),
    );
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
}
