/**
 * @module stores/postgres/database
 * Opens a `pg` connection pool from a `postgres://` URL, waits (bounded) for the server to answer, and applies the
 * drizzle-kit migrations in `migrations/postgres/` under an advisory lock, so replicas starting together never race.
 *
 * `pg` (node-postgres) is the driver: it is drizzle's best-trodden PostgreSQL path (`drizzle-orm/node-postgres` and
 * its migrator), and it brings a pool, TLS from the URL's `sslmode`, and `LISTEN`/advisory locks on a held client.
 */
import { hostname } from 'node:os';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { InternalError, ValidationError, describeError } from '../../api/errors.js';
import { isPostgresUrl, redactUrl } from '../database-url.js';
import { migrationsFolder } from '../migrations-folder.js';
import { fromPostgresError, isConnectionError } from './errors.js';
import * as schema from './schema.js';

/** The drizzle handle over tollgate's PostgreSQL schema. */
export type PostgresDb = NodePgDatabase<typeof schema>;

/** What the database layer logs through (pino's shape). */
export interface DatabaseLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** Options of {@link openPostgres}. */
export interface PostgresOptions {
  /** Most connections this process opens (`TOLLGATE_DB_POOL`, default 10). */
  poolSize?: number;
  /** How long start-up waits for the server to answer before giving up (`TOLLGATE_DB_WAIT_S`, default 30 s). */
  waitForS?: number;
  logger?: DatabaseLogger;
  /** Shown in `pg_stat_activity.application_name`; default `tollgate@<host>:<pid>`. */
  applicationName?: string;
}

/** An open pool: the drizzle handle, the raw pool, the URL without its password, and how to close it. */
export interface OpenPostgres {
  db: PostgresDb;
  pool: pg.Pool;
  /** The URL with any password replaced by `…`: safe to log and print. */
  shownUrl: string;
  close(): Promise<void>;
}

/** Arbitrary fixed key of the advisory lock that serializes migrations across replicas ("tollga" in ASCII). */
const MIGRATION_LOCK = 0x746f6c6c6761;

/**
 * Builds the pool for `url` (nothing connects yet). TLS follows the URL's `sslmode` as `pg` reads it: `disable`
 * (no TLS), `no-verify` (TLS, any certificate), `verify-full` (TLS, verified certificate and host name; pg reads
 * `prefer` / `require` / `verify-ca` the same way);
 * `sslrootcert=…` names a CA file.
 * @throws ValidationError when `url` is not a PostgreSQL URL pg can read.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): OpenPostgres {
  if (!isPostgresUrl(url))
    throw new ValidationError(`TOLLGATE_DB / --db: not a PostgreSQL URL: ${redactUrl(url)}`, [
      { path: 'db', message: 'expected postgres://…' },
    ]);
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
    throw new ValidationError(
      `TOLLGATE_DB_POOL: expected a whole number from 1 to 1000, got ${String(options.poolSize)}`,
      [{ path: 'TOLLGATE_DB_POOL', message: 'expected 1..1000' }],
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A query waiting for a free connection fails after 5 s (a 503) instead of hanging the caller's request.
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // TCP keep-alive makes a connection to a dead host fail in seconds rather than the OS's hours.
    keepAlive: true,
    application_name: options.applicationName ?? `tollgate@${hostname()}:${process.pid}`,
  });
  // An idle client whose backend dies (pg_terminate_backend, a server restart) emits 'error' on the pool; without a
  // listener that would crash the process. The pool drops the client and the next query opens a fresh connection.
  pool.on('error', (error) =>
    options.logger?.warn({ err: describeError(error) }, 'PostgreSQL connection lost; the pool will reconnect'),
  );
  let closed: Promise<void> | null = null;
  return {
    db: drizzle(pool, { schema }),
    pool,
    shownUrl: redactUrl(url),
    close: () => (closed ??= pool.end()),
  };
}

/**
 * Waits until the server answers `SELECT 1`, retrying connection failures (refused, starting up, too many clients)
 * with backoff for at most `waitForS` seconds, logging what it waits for. Other failures (wrong password, missing
 * database) throw at once: waiting would not fix them.
 * @throws the translated error (a {@link ServiceUnavailableError} after the wait, else what the server said).
 */
export async function waitForPostgres(
  open: OpenPostgres,
  options: Pick<PostgresOptions, 'waitForS' | 'logger'> = {},
): Promise<void> {
  const deadline = Date.now() + (options.waitForS ?? 30) * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      await open.pool.query('SELECT 1');
      if (attempt > 1) options.logger?.info({ db: open.shownUrl, attempt }, 'PostgreSQL answers');
      return;
    } catch (error) {
      const delayMs = Math.min(250 * 2 ** (attempt - 1), 2000);
      if (!isConnectionError(error) || Date.now() + delayMs > deadline) throw fromPostgresError(error);
      options.logger?.info(
        { db: open.shownUrl, attempt, reason: describeError(error), retryInMs: delayMs },
        `waiting for PostgreSQL at ${open.shownUrl}`,
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/**
 * Applies every migration not yet applied, holding a session advisory lock on one connection meanwhile: a second
 * replica starting at the same moment waits for the first, then finds nothing left to do. Safe at every start.
 */
export async function applyPostgresMigrations(open: OpenPostgres): Promise<void> {
  const client = await open.pool.connect().catch((error: unknown) => Promise.reject(fromPostgresError(error)));
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client, { schema }), { migrationsFolder: migrationsFolder('postgres') });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (error) {
    broken = true;
    if (isConnectionError(error)) throw fromPostgresError(error);
    throw new InternalError(
      `applying migrations/postgres failed: ${describeError(error)}`,
      'tollgate_database_migration',
    );
  } finally {
    // A client whose session failed mid-way may still hold the lock; destroying it ends the session and frees it.
    client.release(broken);
  }
}
