/**
 * @module stores/database-url
 * Reading `--db` / `TOLLGATE_DB`: which dialect a value names, and how to show it without its password. No driver is
 * imported here, so the CLI can classify and print a value before deciding what to load.
 */
import { ValidationError } from '../api/errors.js';
import type { Dialect } from './migrations-folder.js';

/** Whether `value` is a PostgreSQL URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** `value` with its password (in the user-info or a `password=` query option) replaced by `…`, for logs and output. */
export function redactUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, '$1:…@').replace(/([?&]password=)[^&#]*/gi, '$1…');
}

/**
 * Which dialect `value` names: a path (or `C:\…`, or `:memory:`) is SQLite, a `postgres://` / `postgresql://` URL is
 * PostgreSQL.
 * @throws ValidationError for any other `scheme:` — before anything is created, so no directory named `redis:` appears.
 */
export function databaseDialect(value: string): Dialect {
  if (isPostgresUrl(value)) return 'postgres';
  // One letter before the colon is a Windows drive (C:\data\tollgate.db), not a scheme.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value)?.[1]?.toLowerCase();
  if (!scheme || value === ':memory:') return 'sqlite';
  const why = `"${scheme}:" is not a database tollgate knows`;
  throw new ValidationError(
    `TOLLGATE_DB / --db: ${why} (got ${redactUrl(value)}); give the path of a SQLite file (./data/tollgate.db) or a postgres:// URL`,
    [{ path: 'db', message: why }],
  );
}
