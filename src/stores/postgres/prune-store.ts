/**
 * @module stores/postgres/prune-store
 * {@link PruneStore} on PostgreSQL. A batch is one transaction holding the integrator's head (`chain_head`'s row, the
 * lock every replica's integrator takes with `SKIP LOCKED`), so the chain does not move while the batch decides where
 * to cut and deletes; integrators skip for those few milliseconds, and writers, who never touch the head, go on. Only
 * integrated events go (by `seq`); pending ones are newer than every cut.
 */
import type pg from 'pg';
import type { ChainCheckpoint } from '../../audit/types.js';
import type { PruneStore, PruneTransaction } from '../../history/prune.js';
import { CHAIN_ROWS, chainRowsOf, pruneCheckpoint } from './audit-chain.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { inTransaction } from './transaction.js';

/** The prune's reads and deletes on a PostgreSQL database. */
export class PostgresPruneStore implements PruneStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async chained() {
    return withPostgresErrors(
      async () =>
        ((await this.open.pool.query('SELECT 1 FROM chain_head WHERE size > 0 OR checkpoint > 0')).rowCount ?? 0) > 0,
    );
  }

  async checkpoint(): Promise<ChainCheckpoint | null> {
    return withPostgresErrors(() => pruneCheckpoint(this.open.pool));
  }

  async transaction<T>(fn: (tx: PruneTransaction) => Promise<T>): Promise<T> {
    return inTransaction(this.open.pool, async (client) => {
      // Waits for an integrator's batch under way, then keeps the chain still until commit.
      await client.query('SELECT 1 FROM chain_head WHERE id = 1 FOR UPDATE');
      return fn(transaction(client));
    });
  }
}

function transaction(client: pg.PoolClient): PruneTransaction {
  return {
    async chainRows(afterId, limit) {
      const { rows } = await client.query<unknown[]>({ text: CHAIN_ROWS, values: [afterId, limit], rowMode: 'array' });
      return chainRowsOf(rows);
    },
    async headId() {
      const { rows } = await client.query<{ size: string }>('SELECT size FROM chain_head WHERE id = 1');
      const size = Number(rows[0]?.size ?? 0);
      return size === 0 ? null : size;
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
        // A pending event (no seq yet) counts as after every other: its request cannot go yet.
        'SELECT request_id, max(coalesce(seq, 9007199254740991)) AS id FROM confirmation_events WHERE request_id = ANY($1::text[]) GROUP BY request_id',
        [ids],
      );
      return new Map(rows.map((r) => [r.request_id, Number(r.id)]));
    },
    async remove(ids, afterId, throughId) {
      const events =
        (await client.query('DELETE FROM confirmation_events WHERE seq > $1 AND seq <= $2', [afterId, throughId]))
          .rowCount ?? 0;
      await client.query('DELETE FROM channel_messages WHERE request_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM confirmation_voters WHERE request_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM grants WHERE request_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM verdict_tokens WHERE request_id = ANY($1::text[])', [ids]);
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
