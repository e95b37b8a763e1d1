/**
 * @module stores/postgres/errors
 * The one place where PostgreSQL's errors become tollgate's, keyed on the SQLSTATE code (the part PostgreSQL keeps
 * stable across versions and locales): a unique violation is a {@link ConflictError}, a lost or refused connection,
 * a server shutting down, a deadlock or a serialization failure a retryable {@link ServiceUnavailableError} (503 with
 * `Retry-After`), text PostgreSQL cannot store (a NUL byte, a `\u0000` in JSON) a {@link ValidationError}, and the
 * rest an {@link InternalError} that says what to fix. The codes match the SQLite translation's
 * (`tollgate_database_conflict`, `tollgate_database_busy`, …), so callers see the same errors whatever the dialect.
 *
 * @remarks Left out: errors that are not the database's (a bug's TypeError stays what it is, a 500 logged in full).
 */
import {
  ConflictError,
  InternalError,
  NotFoundError,
  ServiceUnavailableError,
  TollgateError,
  ValidationError,
} from '../../api/errors.js';

/** Words for a unique violation when the caller knows better ("a token named x exists already"). */
export interface PostgresErrorContext {
  conflict?: string;
}

/** Node's socket errors: the server is down, unreachable, or the connection broke. */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** pg's own words for a connection that ended or never came (it throws plain Errors for these, with no code). */
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Client was closed|Connection ended/i;

/** The SQLSTATE (or socket errno) of `error` or of an error in its `cause` chain (drizzle wraps driver errors). */
export function postgresCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    // A SQLSTATE is five digits or capitals; Node's own codes (ERR_INVALID_ARG_TYPE, a bug) are left alone.
    if (
      typeof code === 'string' &&
      !(e instanceof TollgateError) &&
      (/^[0-9A-Z]{5}$/.test(code) || CONNECTION_ERRNOS.has(code))
    )
      return code;
    if (CONNECTION_MESSAGES.test(e.message)) return 'ECONNRESET';
  }
  return undefined;
}

/** Whether `error` means the database cannot be reached right now (a retry, or the pool's next connection, may work). */
export function isConnectionError(error: unknown): boolean {
  const code = postgresCode(error);
  return code !== undefined && isConnectionCode(code);
}

/** Socket errnos, class 08 (connection exception), 57P (the server shutting down or a backend terminated), 53300. */
function isConnectionCode(code: string): boolean {
  return CONNECTION_ERRNOS.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300';
}

/**
 * The tollgate error for `error` when it comes from PostgreSQL or the connection to it (with the original as
 * `cause`), else `error` unchanged.
 */
export function fromPostgresError(error: unknown, context: PostgresErrorContext = {}): unknown {
  if (error instanceof TollgateError) return error;
  const code = postgresCode(error);
  if (code === undefined) return error;
  const translated = translate(code, context);
  translated.cause = error;
  return translated;
}

function translate(code: string, context: PostgresErrorContext): TollgateError {
  if (isConnectionCode(code)) {
    return new ServiceUnavailableError(
      'the database cannot be reached right now (connection lost or refused); retry shortly',
      'tollgate_database_unavailable',
      2,
    );
  }
  switch (code) {
    case '23505': // unique_violation
      return new ConflictError(
        context.conflict ?? 'a record with the same key exists already',
        'tollgate_database_conflict',
      );
    case '23503': // foreign_key_violation
      return new NotFoundError('the request this refers to does not exist', 'tollgate_database_missing_parent');
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
    case '55P03': // lock_not_available
    case '57014': // query_canceled (statement_timeout)
      return new ServiceUnavailableError('the database is busy; retry shortly', 'tollgate_database_busy');
    case '22P05': // untranslatable_character: "\u0000" in jsonb
    case '22021': // character_not_in_repertoire: a NUL byte in text
      return new ValidationError(
        'a text or JSON value holds a NUL character (\\u0000), which the database cannot store',
        [{ path: 'body', message: 'contains a NUL character (\\u0000)' }],
      );
    case '25006': // read_only_sql_transaction
      return new InternalError(
        'the database is read-only (a standby, or default_transaction_read_only): point TOLLGATE_DB at the primary',
        'tollgate_database_readonly',
      );
    case '53100': // disk_full
      return new InternalError('the disk holding the database is full', 'tollgate_database_full');
    case '3D000': // invalid_catalog_name
      return new InternalError(
        'the database named in TOLLGATE_DB does not exist; create it (createdb) first',
        'tollgate_database_missing',
      );
  }
  if (code.startsWith('28'))
    return new InternalError('the database refused the credentials in TOLLGATE_DB', 'tollgate_database_auth');
  if (code.startsWith('42'))
    return new InternalError(
      'the database schema is not what this version expects: run `tollgate migrate`',
      'tollgate_database_schema',
    );
  return new InternalError('the database refused the operation; see the gateway log', 'tollgate_database_error');
}

/** Awaits `fn`, translating a PostgreSQL error it throws. */
export async function withPostgresErrors<T>(fn: () => Promise<T>, context: PostgresErrorContext = {}): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fromPostgresError(error, context);
  }
}
