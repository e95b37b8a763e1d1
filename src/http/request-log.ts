/**
 * @module http/request-log
 * Every HTTP request gets an id (a sane incoming `X-Request-Id`, or a new UUID), sent back in `X-Request-Id` and
 * used by every log line about it, and one debug line when it is done. Headers and bodies are never logged.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/** Gives `req` its id (in the `X-Request-Id` response header) and logs it once the response is done. */
export function tagRequest(req: IncomingMessage, res: ServerResponse, logger: Logger, path: string): void {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', requestId);
  if (!logger.isLevelEnabled('debug')) return;
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.debug(
      { reqId: requestId, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
      'http',
    );
  });
}

/** {@link tagRequest} as express middleware (the id is also `res.locals.requestId`). */
export function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    tagRequest(req, res, logger, req.path);
    res.locals.requestId = res.getHeader('x-request-id');
    next();
  };
}
