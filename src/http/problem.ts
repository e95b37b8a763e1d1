/**
 * @module http/problem
 * The one error-to-response mapper: every error leaves as `application/problem+json` (RFC 9457). Known errors keep
 * their status and words; body-parser errors become 400/413/415; anything else is a 500 with no stack trace.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ServiceUnavailableError, TollgateError, type FieldProblem } from '../errors.js';

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

/** Sends a problem document. */
export function sendProblem(res: Response, status: number, detail: string, extra: { code?: string; errors?: FieldProblem[] } = {}): void {
  const problem: Problem = {
    type: `https://tollgate.dev/problems/${extra.code ?? `http_${status}`}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
  res.status(status).type('application/problem+json').send(JSON.stringify(problem));
}

/** Express's body-parser and raw-body errors carry `status`/`type`. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** The app's error handler. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error instanceof TollgateError) {
      // A 5xx we named (a busy or read-only database) still needs the operator's eyes, with the original cause.
      if (error.status >= 500) logger.error({ err: error, cause: error.cause, reqId: res.locals.requestId, path: req.path }, error.message);
      if (error instanceof ServiceUnavailableError) res.setHeader('Retry-After', String(error.retryAfterS));
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
    logger.error({ err: error, reqId: res.locals.requestId, path: req.path }, 'unhandled error');
    sendProblem(res, 500, 'internal error; see the gateway log for this request id', { code: 'internal' });
  };
}
