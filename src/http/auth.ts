/**
 * @module http/auth
 * Bearer-token authentication of `/v1` and the scope checks of its routes. Tokens from `TOLLGATE_API_TOKENS` are
 * admin tokens, compared in constant time (each candidate is hashed first, so neither content nor length leaks
 * through timing); every other token is looked up by the SHA-256 of its secret in the {@link TokenStore}, so a
 * revocation holds at once on every replica. The caller becomes `res.locals.principal`.
 */
import { createHash } from 'node:crypto';
import { digestIn } from '../utils/secure-compare.js';
import type { RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../api/errors.js';
import { allows, ENV_TOKEN_NAME, type Principal, type Scope } from '../tokens/scopes.js';
import type { TokenStore } from '../tokens/token-store.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when `candidate` equals one of `tokens` (their SHA-256 digests), checked in constant time over every token. */
export const tokenMatches = digestIn;

/** The caller of an environment token: an administrator (trusted bridges, operators). */
export const ENV_ADMIN: Principal = Object.freeze({
  id: 'env',
  name: ENV_TOKEN_NAME,
  scopes: ['admin'] as Scope[],
  as: null,
});

/** Where {@link authenticator} finds tokens. */
export interface AuthSources {
  /** Admin tokens from `TOLLGATE_API_TOKENS` (or the one `serve` generated). */
  adminTokens: readonly string[];
  /** Tokens created over `POST /v1/tokens`. */
  tokens?: TokenStore;
  now?: () => number;
}

/** Finds the caller of an `Authorization` header; rejects with {@link UnauthorizedError} when there is none. */
export type Authenticator = (authorization: string | undefined) => Promise<Principal>;

/**
 * The caller of a request's `Authorization: Bearer <token>` header.
 * @example const principal = await authenticator({ adminTokens: ['tg_secret'], tokens })(req.headers.authorization)
 */
export function authenticator(sources: AuthSources): Authenticator {
  const hashed = sources.adminTokens.map(digest);
  const now = sources.now ?? Date.now;
  // Async: the token store may be a network database (a rejection when it is down becomes a 503).
  return async (header = '') => {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const secret = match?.[1];
    const principal = !secret
      ? null
      : tokenMatches(secret, hashed)
        ? ENV_ADMIN
        : ((await sources.tokens?.authenticate(secret, new Date(now()))) ?? null);
    if (!principal)
      throw new UnauthorizedError(
        header ? 'invalid bearer token (unknown, revoked or expired)' : 'missing Authorization: Bearer <token> header',
      );
    return principal;
  };
}

/**
 * Middleware requiring `Authorization: Bearer <token>`; sets `res.locals.principal`.
 * @example app.use('/v1', bearerAuth(authenticator({ adminTokens: ['tg_secret'], tokens })))
 */
export function bearerAuth(authenticate: Authenticator): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await authenticate(req.headers.authorization);
    next();
  };
}

/** The authenticated caller (set by {@link bearerAuth}). */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new UnauthorizedError();
  return principal;
}

/** Throws {@link ForbiddenError} (403) unless `principal`'s token has one of `scopes`. */
export function checkScope(principal: Principal, scopes: readonly Scope[]): void {
  if (scopes.some((s) => allows(principal, s))) return;
  throw new ForbiddenError(
    `token "${principal.name}" lacks the scope ${scopes.map((s) => `"${s}"`).join(' or ')}`,
    'tollgate_insufficient_scope',
  );
}

/** Middleware refusing (403) callers whose token lacks every one of `scopes`. */
export function requireScope(...scopes: Scope[]): RequestHandler {
  return (_req, res, next) => {
    checkScope(principalOf(res), scopes);
    next();
  };
}
