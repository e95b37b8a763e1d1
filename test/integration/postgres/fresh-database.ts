/**
 * A uniquely named PostgreSQL database on the test server (127.0.0.1:5432, user postgres, trust auth), for one test
 * file: created on demand, migrated once, dropped after (`WITH (FORCE)` ends connections a test left open).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { applyPostgresMigrations, openPostgres } from '../../../src/stores/postgres/database.js';

/** The server's admin URL; `TOLLGATE_TEST_PG` overrides it. */
export const PG_ADMIN_URL = process.env.TOLLGATE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database: its URL, and how to drop it. */
export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Runs `fn` on one connection to `url`, closed after. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const admin = <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => withClient(PG_ADMIN_URL, fn);

/** Creates an empty database named `tollgate_test_<random>`; `migrate` applies tollgate's migrations to it. */
export async function freshDatabase(options: { migrate?: boolean } = {}): Promise<FreshDatabase> {
  const name = `tollgate_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = PG_ADMIN_URL.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  if (options.migrate) {
    const open = openPostgres(url, { poolSize: 1 });
    try {
      await applyPostgresMigrations(open);
    } finally {
      await open.close();
    }
  }
  return { url, name, drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))) };
}

/** Empties tollgate's tables in `url` (between tests sharing one database). */
export async function truncateAll(url: string): Promise<void> {
  await withClient(url, (c) => c.query('TRUNCATE confirmation_events, channel_messages, confirmation_requests, api_tokens, shared_marks, grants, deployment_secrets, directory_resolutions RESTART IDENTITY CASCADE'));
}
