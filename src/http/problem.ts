/**
 * @module http/problem
 * The one error-to-response mapper: every error leaves as `application/problem+json` (RFC 9457). Known errors keep
 * their status and words; body-parser errors become 400/413/415; anything else is a 500 with no stack trace.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { TollgateError, type FieldProblem } from '../api/errors.js';

/** A problem document. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldProblem[];
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Sends a problem document (on a plain node response: the express app and the lean routes both answer with it). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  extra: { code?: string; errors?: FieldProblem[] } = {},
): void {
  const problem: Problem = {
    type: `https://tollgate.dev/problems/${extra.code ?? `http_${status}`}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
  const body = JSON.stringify(problem);
  res.statusCode = status;
  res.setHeader('content-type', 'application/problem+json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** Express's body-parser and raw-body errors carry `status`/`type`. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** The express app's error handler: {@link sendError}. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => sendError(logger, error, req, res);
}

/**
 * Answers `error` as problem+json: a {@link TollgateError} with its status, code and words (and `Retry-After` when it
 * says when to retry), a body-parser error as 400/413/415, anything else as a 500 without its message (logged).
 */
export function sendError(logger: Logger, error: unknown, req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const where = () => ({ reqId: res.getHeader('x-request-id'), path: (req.url ?? '').split('?')[0] });
  if (error instanceof TollgateError) {
    // A 5xx we named (a busy or read-only database) still needs the operator's eyes, with the original cause.
    if (error.status >= 500) logger.error({ err: error, cause: error.cause, ...where() }, error.message);
    if (typeof error.retryAfterS === 'number') res.setHeader('Retry-After', String(error.retryAfterS));
    sendProblem(res, error.status, error.message, { code: error.code, errors: error.errors });
    return;
  }
  const e = (error ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  if (status && status >= 400 && status < 500) {
    const detail =
      e.type === 'entity.parse.failed'
        ? 'body is not valid JSON'
        : e.type === 'entity.too.large'
          ? 'body is larger than the limit'
          : e.expose && e.message
            ? e.message
            : (TITLES[status] ?? 'bad request');
    sendProblem(res, status, detail, { code: e.type?.replace(/\./g, '_') });
    return;
  }
  logger.error({ err: error, ...where() }, 'unhandled error');
  sendProblem(res, 500, 'internal error; see the gateway log for this request id', { code: 'internal' });
}
