/**
 * @module stores/sqlite/audit-chain
 * {@link AuditChain} on SQLite: the event rows with their stored text, and the request fields a `created` row covers.
 */
import type Database from 'better-sqlite3';
import type { AuditChain, ChainCheckpoint, ChainHead, ChainRow } from '../../audit/types.js';

/** Chain rows after `?`, up to `?` of them (shared with `tollgate prune`, which walks the same rows). */
export const CHAIN_ROWS = `SELECT e.id, e.prev_hash, e.hash, e.request_id, e.type, e.actor, e.channel, e.detail, e.at,
    r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.id > ? ORDER BY e.id LIMIT ?`;

/** The audit chain of one SQLite file. */
export class SqliteAuditChain implements AuditChain {
  constructor(private readonly sqlite: Database.Database) {}

  async rows(afterId: number, limit: number): Promise<ChainRow[]> {
    return this.sqlite.prepare(CHAIN_ROWS).raw().all(afterId, limit) as ChainRow[];
  }

  async lastBefore(at: Date) {
    return (
      (this.sqlite
        .prepare('SELECT id, hash FROM confirmation_events WHERE at < ? ORDER BY id DESC LIMIT 1')
        .get(at.toISOString()) as { id: number; hash: string | null } | undefined) ?? null
    );
  }

  async head(): Promise<ChainHead | null> {
    const row = this.sqlite
      .prepare('SELECT id AS eventId, hash, at FROM confirmation_events ORDER BY id DESC LIMIT 1')
      .get() as ChainHead | undefined;
    return row ?? null;
  }

  async started() {
    const row = this.sqlite
      .prepare("SELECT event_id AS eventId, at FROM audit_marks WHERE name = 'chain_started'")
      .get() as { eventId: number; at: string } | undefined;
    return row ? { eventId: row.eventId, at: new Date(row.at) } : null;
  }

  async coverage() {
    const row = this.sqlite
      .prepare("SELECT event_id AS eventId, at FROM audit_marks WHERE name = 'coverage_started'")
      .get() as { eventId: number; at: string } | undefined;
    return row ? { eventId: row.eventId, at: new Date(row.at) } : null;
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    const row = this.sqlite
      .prepare(
        'SELECT event_id AS eventId, hash, at, signature, pruned_before AS prunedBefore FROM audit_checkpoints ORDER BY event_id DESC LIMIT 1',
      )
      .get() as ChainCheckpoint | undefined;
    return row ?? null;
  }
}
