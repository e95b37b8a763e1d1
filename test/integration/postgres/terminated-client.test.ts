/**
 * A connection the server ends while a transaction holds it (pg_terminate_backend, a failover) fails that
 * transaction, never the process: pg-pool drops its own `error` listener while a client is checked out, so without
 * one of ours the client's `error` event went unhandled and ended the gateway (the fault suite's last fault killed a
 * replica whose integrator held a client at that moment).
 */
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { inTransaction } from '../../../src/stores/postgres/transaction.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

let db: FreshDatabase | undefined;
let pool: pg.Pool | undefined;
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

it('fails the transaction whose connection was ended between two statements, and the pool goes on', async () => {
  db = await freshDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pool.on('error', () => undefined);
  const ended = inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await withClient(db!.url, (other) => other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]));
    // Idle between two statements while the server ends the connection: the client emits `error` now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.query('SELECT 1');
  });
  await expect(ended).rejects.toThrow();
  // The broken client was discarded: the next transaction gets a working one.
  expect(await inTransaction(pool, async (client) => (await client.query('SELECT 1 AS one')).rows[0])).toEqual({
    one: 1,
  });
});
