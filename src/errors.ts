/**
 * @module errors
 * tollgate's error classes. Each carries an HTTP status and a stable `code`; `http/errors.ts` turns them into
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
}

/** Input that does not fit the schema (400). */
export class ValidationError extends TollgateError {
  constructor(message: string, errors?: FieldProblem[]) {
    super(message, 400, 'tollgate_validation_error', errors);
  }
}

/** No such request (404). */
export class NotFoundError extends TollgateError {
  constructor(message: string) {
    super(message, 404, 'tollgate_not_found');
  }
}

/** The request exists but conflicts with what was asked (409): an idempotency key reused with other arguments, a cancel of a decided request. */
export class ConflictError extends TollgateError {
  constructor(message: string) {
    super(message, 409, 'tollgate_conflict');
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
