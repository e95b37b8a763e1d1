/**
 * A uniquely named PostgreSQL database on the test server (127.0.0.1:5432, user postgres, trust auth), for one test
 * file: created on demand, migrated once, dropped after (`WITH (FORCE)` ends connections a test left open). Each is
 * also dropped when its test file ends if the test did not drop it (test/support/leftovers.ts): a `beforeAll` that
 * timed out while the database was being created left its suite's `afterAll` nothing to drop.
 *
 * A migrated database is a copy of a template that tollgate's migrations were applied to once (`CREATE DATABASE …
 * TEMPLATE`): forty-odd test files each running the migrations cost a second apiece on a busy machine, a copy a few
 * hundred milliseconds. The template is named after a hash of the migration files, so a new migration makes a new
 * template, and checkouts with different migrations on one server do not share one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrationsFolder } from '../../../src/stores/migrations-folder.js';
import { applyPostgresMigrations, openPostgres } from '../../../src/stores/postgres/database.js';
import { removeAtEnd } from '../../support/leftovers.js';

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

const urlOf = (name: string) => PG_ADMIN_URL.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);

/** Applies tollgate's migrations to the database at `url`. */
async function migrate(url: string): Promise<void> {
  const open = openPostgres(url, { poolSize: 1 });
  try {
    await applyPostgresMigrations(open);
  } finally {
    await open.close();
  }
}

/** `tollgate_tpl_<hash of the migration files>`. */
function templateName(): string {
  const folder = migrationsFolder('postgres');
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(folder);
  return `tollgate_tpl_${hash.digest('hex').slice(0, 16)}`;
}

let template: Promise<string> | undefined;

/**
 * The migrated template, made once per server and migration set: under an advisory lock (test files in parallel
 * workers ask at once), built under a scratch name and renamed when complete, so nobody copies a half-migrated one.
 */
function migratedTemplate(): Promise<string> {
  template ??= admin(async (c) => {
    const name = templateName();
    await c.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    try {
      if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
      const scratch = `${name}_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
      await c.query(`CREATE DATABASE ${scratch}`);
      try {
        await migrate(urlOf(scratch));
        await c.query(`ALTER DATABASE ${scratch} RENAME TO ${name}`);
      } catch (error) {
        await c.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
        throw error;
      }
      return name;
    } finally {
      await c.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
  return template;
}

/**
 * Creates an empty database named `tollgate_test_<random>`; `migrate` gives it tollgate's migrations (a template copy);
 * `copyOf` names a database to copy instead (one with no open connection: PostgreSQL copies only an idle one), so each
 * test can own a copy of rows that are slow to build.
 */
export async function freshDatabase(options: { migrate?: boolean; copyOf?: string } = {}): Promise<FreshDatabase> {
  const name = `tollgate_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const drop = () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
  const creation = (async () => {
    const template = options.copyOf ?? (options.migrate ? await migratedTemplate() : undefined);
    const from = template ? ` TEMPLATE ${template}` : '';
    await admin((c) => c.query(`CREATE DATABASE ${name}${from}`));
  })();
  // Registered before it exists: if the caller's hook times out now, the file's end still waits for it and drops it.
  const forget = removeAtEnd(async () => {
    await creation.catch(() => undefined);
    await drop();
  });
  await creation;
  return {
    url: urlOf(name),
    name,
    drop: async () => {
      await drop();
      forget();
    },
  };
}

/** Empties tollgate's tables in `url` (between tests sharing one database). */
export async function truncateAll(url: string): Promise<void> {
  await withClient(url, (c) =>
    c.query(
      'TRUNCATE confirmation_events, channel_messages, confirmation_requests, api_tokens, shared_marks, grants, deployment_secrets, directory_resolutions RESTART IDENTITY CASCADE',
    ),
  );
}
