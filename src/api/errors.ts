/**
 * @module api/errors
 * tollgate's error classes. Each carries an HTTP status and a stable `code`; `http/problem.ts` turns them into
 * `application/problem+json` in one place, so the library, the API and the CLI report the same words.
 */

/** One field-level problem: where (`tool_args`, `channels[0].type`) and what is wrong. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Base class of every error tollgate reports on purpose. */
export class TollgateError extends Error {
  constructor(
    message: string,
    /** HTTP status the API answers with. */
    readonly status: number,
    /** Stable, namespaced code, e.g. `tollgate_validation_error`. */
    readonly code: string,
    /** Field-level problems, for validation errors. */
    readonly errors?: FieldProblem[],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** Seconds after which a retry may succeed (sent as `Retry-After`); absent on errors a retry does not fix. */
  declare readonly retryAfterS?: number;
}

/** Input that does not fit the schema (400). */
export class ValidationError extends TollgateError {
  constructor(message: string, errors?: FieldProblem[]) {
    super(message, 400, 'tollgate_validation_error', errors);
  }
}

/** No such request (404). */
export class NotFoundError extends TollgateError {
  constructor(message: string, code = 'tollgate_not_found') {
    super(message, 404, code);
  }
}

/** The request exists but conflicts with what was asked (409): an idempotency key reused with other arguments, a cancel of a decided request. */
export class ConflictError extends TollgateError {
  constructor(message: string, code = 'tollgate_conflict') {
    super(message, 409, code);
  }
}

/** Missing or wrong credentials (401). */
export class UnauthorizedError extends TollgateError {
  constructor(message = 'missing or invalid bearer token') {
    super(message, 401, 'tollgate_unauthorized');
  }
}

/** Authenticated but not allowed (403): e.g. an approver not on the request's allowlist. */
export class ForbiddenError extends TollgateError {
  constructor(message: string, code = 'tollgate_forbidden') {
    super(message, 403, code);
  }
}

/**
 * Not now, but soon (503): something tollgate needs is busy — e.g. another process holds the database's write lock.
 * Retrying is safe; the API sends `Retry-After`.
 */
export class ServiceUnavailableError extends TollgateError {
  constructor(
    message: string,
    code = 'tollgate_unavailable',
    /** Seconds a caller should wait before retrying. */
    override readonly retryAfterS = 1,
  ) {
    super(message, 503, code);
  }
}

/**
 * A failure a retry will not fix (500) — a read-only, full or damaged database — in words an operator can act on.
 * The original error stays in `cause` for the log; it never reaches a response.
 */
export class InternalError extends TollgateError {
  constructor(message: string, code = 'tollgate_internal') {
    super(message, 500, code);
  }
}

/**
 * One line saying what went wrong, for logs, events and CLI output: the error's message, the network reason that
 * `fetch` hides in `cause` (`fetch failed: ECONNREFUSED`), "timed out" for a timeout, and anything thrown that is not
 * an Error as text.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error ?? 'unknown error');
  if (error.name === 'TimeoutError') return 'timed out';
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const reason = cause && typeof cause === 'object' ? (cause.code ?? cause.message) : undefined;
  return typeof reason === 'string' && reason && !error.message.includes(reason)
    ? `${error.message}: ${reason}`
    : error.message;
}
