/**
 * @module http/auth
 * Bearer-token authentication of `/v1`. Tokens are compared in constant time: each candidate is hashed first, so
 * neither the token's content nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when `candidate` equals one of `tokens`, checked in constant time over every token. */
export function tokenMatches(candidate: string, tokens: readonly Buffer[]): boolean {
  const hashed = digest(candidate);
  let found = false;
  for (const token of tokens) found = timingSafeEqual(hashed, token) || found;
  return found;
}

/**
 * Middleware requiring `Authorization: Bearer <token>` with one of `tokens`.
 * @example app.use('/v1', bearerAuth(['tg_secret']))
 */
export function bearerAuth(tokens: readonly string[]): RequestHandler {
  const hashed = tokens.map(digest);
  return (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1] || !tokenMatches(match[1], hashed)) {
      next(new UnauthorizedError(header ? 'invalid bearer token' : 'missing Authorization: Bearer <token> header'));
      return;
    }
    next();
  };
}
