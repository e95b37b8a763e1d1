/**
 * @module audit/sqlite-backlog
 * On SQLite, events written before the audit chain existed (a database from an older tollgate) are chained once, in id
 * order, right after the migrations, and the `chain_started` mark records up to which id (PostgreSQL does the same in
 * its migration). New events are chained by the trigger as they are inserted.
 */
import type Database from 'better-sqlite3';
import { GENESIS_HASH, eventHashOfColumns } from './encoding.js';

const UNCHAINED = `SELECT e.id, e.request_id, e.type, e.actor, e.channel, e.detail, e.at,
    r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.id > ? ORDER BY e.id LIMIT 1000`;

/** Chains every event after the last chained one, and writes the `chain_started` mark once. Idempotent. */
export function chainBacklog(sqlite: Database.Database): void {
  sqlite
    .transaction(() => {
      if (sqlite.prepare("SELECT 1 FROM audit_marks WHERE name = 'chain_started'").get()) return;
      const select = sqlite.prepare(UNCHAINED).raw();
      const update = sqlite.prepare('UPDATE confirmation_events SET prev_hash = ?, hash = ? WHERE id = ?');
      let prev = GENESIS_HASH;
      let lastId = 0;
      for (let rows = select.all(0) as unknown[][]; rows.length; rows = select.all(lastId) as unknown[][]) {
        for (const [id, ...columns] of rows) {
          const hash = eventHashOfColumns(prev, ...(columns as (string | number | null)[]));
          update.run(prev, hash, id);
          prev = hash;
          lastId = id as number;
        }
      }
      sqlite
        .prepare("INSERT INTO audit_marks (name, event_id, at) VALUES ('chain_started', ?, ?)")
        .run(lastId, new Date().toISOString());
    })
    .immediate();
}
