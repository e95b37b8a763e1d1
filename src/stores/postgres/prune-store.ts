/**
 * @module stores/postgres/prune-store
 * {@link PruneStore} on PostgreSQL. A batch is one transaction holding the audit chain's lock (the advisory lock the
 * insert trigger takes, migrations/postgres/0005), so no replica inserts an event while the batch decides where to cut
 * and deletes; their inserts wait for the batch's commit, a few milliseconds.
 */
import type pg from 'pg';
import type { ChainCheckpoint, ChainRow } from '../../audit/types.js';
import type { PruneStore, PruneTransaction } from '../../history/prune.js';
import { CHAIN_ROWS } from './audit-chain.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** The chain's lock: the number the insert trigger locks. */
const CHAIN_LOCK = 7130413505;

/** The prune's reads and deletes on a PostgreSQL database. */
export class PostgresPruneStore implements PruneStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async chained() {
    return withPostgresErrors(
      async () => (await this.open.pool.query("SELECT 1 FROM audit_marks WHERE name = 'chain_started'")).rowCount === 1,
    );
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<{
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
    });
  }

  async transaction<T>(fn: (tx: PruneTransaction) => Promise<T>): Promise<T> {
    return withPostgresErrors(async () => {
      const client = await this.open.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
        const result = await fn(transaction(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    });
  }
}

function transaction(client: pg.PoolClient): PruneTransaction {
  return {
    async chainRows(afterId, limit) {
      const { rows } = await client.query<unknown[]>({ text: CHAIN_ROWS, values: [afterId, limit], rowMode: 'array' });
      return rows.map((r) => [Number(r[0]), ...r.slice(1)] as ChainRow);
    },
    async headId() {
      const { rows } = await client.query<{ id: string | null }>('SELECT max(id) AS id FROM confirmation_events');
      return rows[0]?.id == null ? null : Number(rows[0].id);
    },
    async prunable(ids, before, now) {
      const { rows } = await client.query<{ id: string }>(
        `SELECT r.id FROM confirmation_requests r WHERE r.id = ANY($1::text[]) AND r.status <> 'pending' AND r.responded_at < $2
           AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.request_id = r.id AND g.revoked_at IS NULL AND g.expires_at > $3)`,
        [ids, before, now],
      );
      return new Set(rows.map((r) => r.id));
    },
    async lastEventIds(ids) {
      const { rows } = await client.query<{ request_id: string; id: string }>(
        'SELECT request_id, max(id) AS id FROM confirmation_events WHERE request_id = ANY($1::text[]) GROUP BY request_id',
        [ids],
      );
      return new Map(rows.map((r) => [r.request_id, Number(r.id)]));
    },
    async remove(ids, afterId, throughId) {
      const events =
        (await client.query('DELETE FROM confirmation_events WHERE id > $1 AND id <= $2', [afterId, throughId]))
          .rowCount ?? 0;
      await client.query('DELETE FROM channel_messages WHERE request_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM confirmation_voters WHERE request_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM grants WHERE request_id = ANY($1::text[])', [ids]);
      const requests =
        (
          await client.query("DELETE FROM confirmation_requests WHERE id = ANY($1::text[]) AND status <> 'pending'", [
            ids,
          ])
        ).rowCount ?? 0;
      return { requests, events };
    },
    async saveCheckpoint(c, runId) {
      const values = [c.eventId, c.hash, c.at, c.signature, c.prunedBefore, c.requests, c.events, c.createdAt];
      if (runId !== null) {
        await client.query(
          'UPDATE audit_checkpoints SET event_id = $1, hash = $2, at = $3, signature = $4, pruned_before = $5, requests = $6, events = $7, created_at = $8 WHERE id = $9',
          [...values, runId],
        );
        return runId;
      }
      const { rows } = await client.query<{ id: string }>(
        'INSERT INTO audit_checkpoints (event_id, hash, at, signature, pruned_before, requests, events, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id',
        [...values],
      );
      return Number(rows[0]!.id);
    },
  };
}
