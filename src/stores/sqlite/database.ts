/**
 * @module stores/sqlite/database
 * Opens the SQLite file (WAL, busy timeout, foreign keys) and applies the drizzle-kit migrations in `migrations/sqlite/`.
 */
import { Database, type SqliteConnection } from './driver.js';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ValidationError } from '../../api/errors.js';
import { eventHashOfColumns } from '../../audit/encoding.js';
import { migrationsFolder } from '../migrations-folder.js';
import { withSqliteErrors } from './errors.js';
import * as schema from './schema.js';

/** The drizzle handle over tollgate's schema. */
export type TollgateDb = BetterSQLite3Database<typeof schema>;

/** An open database: the drizzle handle, the raw better-sqlite3 connection, and how to close it. */
export interface OpenDatabase {
  db: TollgateDb;
  sqlite: SqliteConnection;
  close(): void;
}

/**
 * How SQLite makes a commit durable (`TOLLGATE_SQLITE_SYNC`). In WAL mode, `full` syncs the WAL to disk at every
 * commit, so an acknowledged verdict survives power loss and an OS crash; `normal` syncs only at checkpoints, so it
 * survives a crashed process (the commit is in the WAL, in the OS's cache) but a host crash can drop the last commits.
 */
export type SqliteSync = 'full' | 'normal';

/** The durability mode `TOLLGATE_SQLITE_SYNC` names (default `full`); anything else is an error naming the variable. */
export function sqliteSyncFrom(env: Record<string, string | undefined>): SqliteSync {
  const value = (env.TOLLGATE_SQLITE_SYNC ?? 'full').trim().toLowerCase() || 'full';
  if (value === 'full' || value === 'normal') return value;
  throw new ValidationError(
    `TOLLGATE_SQLITE_SYNC: "${env.TOLLGATE_SQLITE_SYNC}" is not a durability mode; use full (survives power loss) or normal (survives a crashed process)`,
    [{ path: 'TOLLGATE_SQLITE_SYNC', message: 'full or normal' }],
  );
}

/**
 * Opens (creating when missing) the SQLite file at `path` with WAL, a busy timeout (several gateway processes may
 * share the file) and foreign keys on. `:memory:` works for throwaway use.
 */
/**
 * The main connection's page cache when `TOLLGATE_SQLITE_CACHE_MB` is unset. SQLite takes it only as pages are used,
 * but a gateway whose work walks the whole file keeps what it filled: with 100,000 requests awaited and decided, 64 MB
 * was ~50 MB of the gateway's RSS (docs/production.md, "Memory"), and 16 MB cost no CPU per decision there. It stays
 * the default because a restart that expires 10,000 of 100,000 rows was slower with 16 MB (bench `restart_100k`).
 */
export const DEFAULT_SQLITE_CACHE_MB = 64;

/** The page cache `TOLLGATE_SQLITE_CACHE_MB` names, in MB (default {@link DEFAULT_SQLITE_CACHE_MB}); a whole number from 1. */
export function sqliteCacheMbFrom(env: Record<string, string | undefined>): number {
  const raw = env.TOLLGATE_SQLITE_CACHE_MB?.trim();
  if (!raw) return DEFAULT_SQLITE_CACHE_MB;
  const mb = Number(raw);
  if (Number.isInteger(mb) && mb >= 1) return mb;
  throw new ValidationError(
    `TOLLGATE_SQLITE_CACHE_MB: "${env.TOLLGATE_SQLITE_CACHE_MB}" is not a page cache size; give whole megabytes, 1 or more (default ${DEFAULT_SQLITE_CACHE_MB})`,
    [{ path: 'TOLLGATE_SQLITE_CACHE_MB', message: 'whole megabytes, 1 or more' }],
  );
}

export function openDatabase(
  path: string,
  options: { busyTimeoutMs?: number; sync?: SqliteSync; cacheMb?: number } = {},
): OpenDatabase {
  checkDatabasePath(path);
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  // A damaged, foreign or unwritable file says so at start-up in tollgate's words, naming the file.
  const sqlite = withSqliteErrors(
    () => {
      const connection = new Database(path);
      try {
        connection.pragma('journal_mode = WAL');
        connection.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
        connection.pragma('foreign_keys = ON');
        // See SqliteSync: FULL (the default) syncs every commit's WAL frames to disk before the commit returns.
        connection.pragma(`synchronous = ${options.sync === 'normal' ? 'NORMAL' : 'FULL'}`);
        // SQLite's default page cache is 2 MB: a start-up that expires 10 000 of 100 000 rows would re-read index pages
        // from the OS for every batch. Taken only as pages are used (see DEFAULT_SQLITE_CACHE_MB).
        connection.pragma(`cache_size = -${(options.cacheMb ?? DEFAULT_SQLITE_CACHE_MB) * 1024}`);
        registerFunctions(connection);
        return connection;
      } catch (error) {
        connection.close();
        throw error;
      }
    },
    { prefix: path },
  );
  const db = drizzle(sqlite, { schema });
  return { db, sqlite, close: () => sqlite.close() };
}

/**
 * A second, read-only connection to the file `connection` has open, with a small page cache (`cacheMb`): for reads
 * that walk the history (exports), so a million rows pass through a few MB of cache instead of filling the gateway's
 * 64 MB one (which then stays resident). Null for `:memory:`, which no other connection can see.
 */
export function openHistoryReader(connection: SqliteConnection, cacheMb = 4): OpenDatabase | null {
  if (connection.memory) return null;
  const sqlite = withSqliteErrors(() => new Database(connection.name, { fileMustExist: true }), {
    prefix: connection.name,
  });
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('query_only = ON');
  sqlite.pragma(`cache_size = -${cacheMb * 1024}`);
  return { db: drizzle(sqlite, { schema }), sqlite, close: () => sqlite.close() };
}

/**
 * Adds the SQL functions tollgate's schema calls to a connection: the audit chain's trigger calls
 * `tollgate_event_hash` on every event inserted (migrations/sqlite/0005_audit_chain_trigger.sql), so a connection
 * opened without it cannot write an event. openDatabase calls it; so must any other connection that writes.
 */
export function registerFunctions(connection: SqliteConnection): void {
  connection.function(
    'tollgate_event_hash',
    { deterministic: true, varargs: true },
    eventHashOfColumns as (...args: unknown[]) => string,
  );
}

/**
 * Refuses a `--db` / `TOLLGATE_DB` value that names a URL scheme before anything is created: `postgres://…` used to
 * become a directory named `postgres:` holding a SQLite file. A plain path (or `C:\…` on Windows) is a SQLite file.
 * @throws ValidationError naming the value and what is accepted.
 */
export function checkDatabasePath(value: string): void {
  if (value === ':memory:') return;
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value)?.[1]?.toLowerCase();
  if (!scheme) return;
  const shown = value.replace(/\/\/[^@/]*@/, '//…@');
  // openStores (stores/open-store.ts) sends postgres:// URLs to PostgreSQL; this guards direct callers.
  const why =
    scheme === 'postgres' || scheme === 'postgresql'
      ? 'a PostgreSQL URL is not a SQLite file (open it with openStores)'
      : `"${scheme}:" is not a database tollgate knows`;
  throw new ValidationError(
    `TOLLGATE_DB / --db: ${why} (got ${shown}); give the path of a SQLite file, e.g. ./data/tollgate.db`,
    [{ path: 'db', message: why }],
  );
}

/**
 * Applies every migration not yet applied. Safe to call at every start; drizzle runs them in one transaction and the
 * busy timeout makes a second process wait for the first.
 */
export function applyMigrations(open: OpenDatabase): void {
  const run = () => migrate(open.db, { migrationsFolder: migrationsFolder('sqlite') });
  withSqliteErrors(
    () => {
      try {
        run();
      } catch {
        // drizzle reads which migrations were applied before its (deferred) BEGIN: two processes starting on one new
        // file both read "none", and the second to write fails on a table the first just made. Its transaction rolled
        // back; read again, the first's migrations are applied and nothing is left to do. A real failure throws again.
        run();
      }
    },
    { prefix: open.sqlite.name },
  );
}
