/**
 * @module stores/sqlite/prune-store
 * {@link PruneStore} on SQLite. A batch is one `BEGIN IMMEDIATE` transaction on the prune's connection: SQLite has
 * one writer at a time, so no event is inserted while the batch decides where to cut and deletes.
 */
import type Database from 'better-sqlite3';
import type { ChainCheckpoint, ChainRow } from '../../audit/types.js';
import type { PruneStore, PruneTransaction } from '../../history/prune.js';
import { CHAIN_ROWS } from './audit-chain.js';

const IDS = '(SELECT value FROM json_each(?))';

/**
 * The prune's reads and deletes on one SQLite connection: the CLI's own, or the gateway's (`history/retention`), where
 * a batch is safe because nothing in it waits outside the process, so no other code runs inside its transaction.
 */
export class SqlitePruneStore implements PruneStore {
  constructor(private readonly sqlite: Database.Database) {}

  async chained() {
    return this.sqlite.prepare('SELECT 1 FROM chain_head WHERE size > 0 OR checkpoint > 0').get() !== undefined;
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    const row = this.sqlite
      .prepare(
        'SELECT event_id AS eventId, hash, at, signature, pruned_before AS prunedBefore FROM audit_checkpoints ORDER BY event_id DESC LIMIT 1',
      )
      .get();
    return (row as ChainCheckpoint | undefined) ?? null;
  }

  async transaction<T>(fn: (tx: PruneTransaction) => Promise<T>): Promise<T> {
    const db = this.sqlite;
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = await fn(transaction(db));
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
}

function transaction(db: Database.Database): PruneTransaction {
  return {
    async chainRows(afterId, limit) {
      return db.prepare(CHAIN_ROWS).raw().all(afterId, limit) as ChainRow[];
    },
    async headId() {
      return (db.prepare('SELECT nullif(size, 0) FROM chain_head WHERE id = 1').pluck().get() as number | null) ?? null;
    },
    async prunable(ids, before, now) {
      const rows = db
        .prepare(
          `SELECT r.id FROM confirmation_requests r WHERE r.id IN ${IDS} AND r.status <> 'pending' AND r.responded_at < ?
             AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.request_id = r.id AND g.revoked_at IS NULL AND g.expires_at > ?)`,
        )
        .pluck()
        .all(JSON.stringify(ids), before.toISOString(), now.toISOString()) as string[];
      return new Set(rows);
    },
    async lastEventIds(ids) {
      const rows = db
        .prepare(
          `SELECT request_id, max(coalesce(seq, 9007199254740991)) FROM confirmation_events WHERE request_id IN ${IDS} GROUP BY request_id`,
        )
        .raw()
        .all(JSON.stringify(ids)) as [string, number][];
      return new Map(rows);
    },
    async remove(ids, afterId, throughId) {
      const list = JSON.stringify(ids);
      const events = db
        .prepare('DELETE FROM confirmation_events WHERE seq > ? AND seq <= ?')
        .run(afterId, throughId).changes;
      db.prepare(`DELETE FROM channel_messages WHERE request_id IN ${IDS}`).run(list);
      db.prepare(`DELETE FROM confirmation_voters WHERE request_id IN ${IDS}`).run(list);
      db.prepare(`DELETE FROM grants WHERE request_id IN ${IDS}`).run(list);
      db.prepare(`DELETE FROM verdict_tokens WHERE request_id IN ${IDS}`).run(list);
      const requests = db
        .prepare(`DELETE FROM confirmation_requests WHERE id IN ${IDS} AND status <> 'pending'`)
        .run(list).changes;
      return { requests, events };
    },
    async saveCheckpoint(c, runId) {
      const values = [
        c.eventId,
        c.hash,
        c.at,
        c.signature,
        c.prunedBefore,
        c.requests,
        c.events,
        c.createdAt.toISOString(),
      ];
      if (runId !== null) {
        db.prepare(
          'UPDATE audit_checkpoints SET event_id = ?, hash = ?, at = ?, signature = ?, pruned_before = ?, requests = ?, events = ?, created_at = ? WHERE id = ?',
        ).run(...values, runId);
        return runId;
      }
      return Number(
        db
          .prepare(
            'INSERT INTO audit_checkpoints (event_id, hash, at, signature, pruned_before, requests, events, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(...values).lastInsertRowid,
      );
    },
  };
}
