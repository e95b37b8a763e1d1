/**
 * @module stores/postgres/transaction
 * The one way the PostgreSQL stores run a transaction on a pooled connection: `BEGIN`, the caller's statements,
 * `COMMIT`, or `ROLLBACK` when one throws. A client that failed for a reason other than a server error (the
 * connection broke, a bug mid-way) is discarded, not returned to the pool in an unknown state.
 */
import type pg from 'pg';
import { withPostgresErrors } from './errors.js';

/**
 * Listens for `error` on a checked-out client until `done()`: pg-pool removes its own listener while a client is
 * checked out, so a connection the server ends between two statements (`pg_terminate_backend`, a failover) would
 * emit an unhandled `error` and end the process. The integrator holds a client every 100 ms, which made it likely:
 * the fault suite's "PostgreSQL terminates every replica's connections" killed a replica.
 */
export function guardClient(client: pg.PoolClient): { error(): unknown; done(): void } {
  let failure: unknown = undefined;
  const listener = (error: unknown) => (failure ??= error);
  client.on('error', listener);
  return { error: () => failure, done: () => void client.removeListener('error', listener) };
}

/** Runs `fn` in a transaction on one client of `pool`; errors leave as tollgate's (`errors.ts`). */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withPostgresErrors(async () => {
    const client = await pool.connect();
    const guard = guardClient(client);
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
      guard.done();
      client.release(guard.error() !== undefined || (failed instanceof Error && !('severity' in failed)));
    }
  });
}
