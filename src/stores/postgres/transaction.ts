/**
 * @module stores/postgres/transaction
 * The one way the PostgreSQL stores run a transaction on a pooled connection: `BEGIN`, the caller's statements,
 * `COMMIT`, or `ROLLBACK` when one throws. A client that failed for a reason other than a server error (the
 * connection broke, a bug mid-way) is discarded, not returned to the pool in an unknown state.
 */
import type pg from 'pg';
import { withPostgresErrors } from './errors.js';

/** Runs `fn` in a transaction on one client of `pool`; errors leave as tollgate's (`errors.ts`). */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withPostgresErrors(async () => {
    const client = await pool.connect();
    let failed: unknown = undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      failed = error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release(failed instanceof Error && !('severity' in failed));
    }
  });
}
