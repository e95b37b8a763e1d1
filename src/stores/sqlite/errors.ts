/**
 * @module stores/sqlite/errors
 * The one place where SQLite's errors become tollgate's: a unique violation is a {@link ConflictError}, a busy or
 * locked database a retryable {@link ServiceUnavailableError}, a read-only, full, damaged or unreadable file an
 * {@link InternalError} that says what to fix. Stores wrap themselves with {@link translateSqliteErrors}, so nothing
 * above them ever sees a `SqliteError` or matches one by name, and no SQLite text reaches a response.
 *
 * @remarks Left out: errors that are not SQLite's (a bug's TypeError stays what it is, a 500 logged in full).
 */
import { Database } from './driver.js';
import {
  ConflictError,
  InternalError,
  NotFoundError,
  ServiceUnavailableError,
  type TollgateError,
} from '../../api/errors.js';

/** What the caller knows that SQLite does not. */
export interface SqliteErrorContext {
  /** Words for a unique violation ("a token named x exists already"). */
  conflict?: string;
  /** Put before every message, e.g. the database path at start-up. */
  prefix?: string;
}

/**
 * The tollgate error for `error` when it is SQLite's (with the original as `cause`), else `error` unchanged.
 * Keyed on SQLite's primary result code (`SQLITE_BUSY` of `SQLITE_BUSY_SNAPSHOT`), the part SQLite keeps stable.
 */
export function fromSqliteError(error: unknown, context: SqliteErrorContext = {}): unknown {
  // drizzle wraps the driver's error (a DrizzleQueryError whose message holds the SQL and its parameters) in `cause`.
  const sqlite =
    error instanceof Database.SqliteError
      ? error
      : error instanceof Error && error.cause instanceof Database.SqliteError
        ? error.cause
        : null;
  if (!sqlite) return error;
  const translated = translate(sqlite.code, context);
  if (context.prefix) translated.message = `${context.prefix}: ${translated.message}`;
  translated.cause = sqlite;
  return translated;
}

function translate(code: string, context: SqliteErrorContext): TollgateError {
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return new ConflictError(
        context.conflict ?? 'a record with the same key exists already',
        'tollgate_database_conflict',
      );
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return new NotFoundError('the request this refers to does not exist', 'tollgate_database_missing_parent');
  }
  switch (code.split('_', 2).join('_')) {
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new ServiceUnavailableError(
        'the database is busy (another process holds its write lock); retry shortly',
        'tollgate_database_busy',
      );
    case 'SQLITE_READONLY':
      return new InternalError(
        'the database is read-only: check the permissions of the database file and its directory',
        'tollgate_database_readonly',
      );
    case 'SQLITE_FULL':
      return new InternalError('the disk holding the database is full', 'tollgate_database_full');
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new InternalError(
        'the database file is damaged or is not a tollgate database; restore it from a backup',
        'tollgate_database_corrupt',
      );
    case 'SQLITE_IOERR':
    case 'SQLITE_CANTOPEN':
      return new InternalError(
        'the database file could not be read or written (I/O error); check the disk and the path',
        'tollgate_database_io',
      );
    default:
      return new InternalError('the database refused the operation; see the gateway log', 'tollgate_database_error');
  }
}

/** Runs `fn`, translating a SQLite error it throws. For one call that knows its conflict's words. */
export function withSqliteErrors<T>(fn: () => T, context: SqliteErrorContext = {}): T {
  try {
    return fn();
  } catch (error) {
    throw fromSqliteError(error, context);
  }
}

/**
 * `target` behind a proxy that translates SQLite errors out of every method: thrown synchronously, rejected by a
 * returned promise, or thrown while iterating a returned async iterable (`scan`). Methods run on `target` itself, so
 * calls inside the store are not translated twice.
 */
export function translateSqliteErrors<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = withSqliteErrors(() => Reflect.apply(value, object, args));
        if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(fromSqliteError(error)));
        if (isAsyncIterable(result)) return translatedIterable(result);
        return result;
      };
    },
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

async function* translatedIterable<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw fromSqliteError(error);
  }
}
