/**
 * @module tokens/token-store
 * API tokens in the database (`api_tokens`): the `TokenStore` contract (SQLite's in `stores/sqlite/token-store`,
 * PostgreSQL's in `stores/postgres/token-store`). Every authentication reads the row, so a revocation or an expiry takes
 * effect at once on every gateway process sharing the database; the lookup is one indexed read of a SHA-256.
 *
 * With a gateway's witness set, a row authenticates only when its signature holds (`audit/witnessed-rows.ts`): a row
 * inserted or edited in the database around tollgate authenticates nobody.
 *
 * @remarks Left out on purpose: the tokens of `TOLLGATE_API_TOKENS` (admin tokens from the environment, checked by
 * the HTTP layer before this store) and any in-memory cache of rows (a cache would delay revocations on other
 * replicas); only signature checks are remembered, keyed by the row as read.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isReservedTokenName, type Principal, type Scope } from './scopes.js';

/** A token as listed: everything but the secret, which is shown once at creation and never stored. */
export interface ApiToken {
  id: string;
  name: string;
  scopes: Scope[];
  as: string | null;
  /** The person the token speaks for (a directory id): the self-approval rule compares it with the approver's person. */
  person: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** What {@link TokenStore.create} takes. */
export interface NewToken {
  name: string;
  scopes: Scope[];
  as?: string | null;
  person?: string | null;
  expiresAt?: Date | null;
}

/**
 * Where API tokens live: the database the requests live in, whatever its dialect (`SqliteTokenStore` in `stores/sqlite/`,
 * `PostgresTokenStore` in `stores/postgres/`). Async because a network database answers later.
 */
export interface TokenStore {
  /** Creates a token; returns it with its secret (the only time the secret is seen). Names are unique forever. */
  create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }>;
  /** The caller a secret belongs to, or null when it is unknown, revoked, expired or (with a witness) unsigned. */
  authenticate(secret: string, now: Date): Promise<Principal | null>;
  /** Every token, oldest first, without secrets. */
  list(): Promise<ApiToken[]>;
  /** Revokes a token at once; revoking twice is fine. Throws `NotFoundError` for an unknown id. */
  revoke(id: string, now: Date): Promise<void>;
}

/** Secrets start with this prefix so secret scanners and people recognise them. */
const SECRET_PREFIX = 'tg_';

/** A new token secret: 256 random bits, prefixed. */
export function newTokenSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The caller `token` stands for at `now`, or null when it is revoked or expired — or goes by a reserved name (created
 * before names were reserved): it would own what the configured tokens filed.
 */
export function usablePrincipal(token: ApiToken, now: Date): Principal | null {
  if (
    token.revokedAt !== null ||
    (token.expiresAt !== null && token.expiresAt <= now) ||
    isReservedTokenName(token.name)
  )
    return null;
  return { id: token.id, name: token.name, scopes: token.scopes, as: token.as, person: token.person };
}

/** SHA-256 hex of a secret: what the table keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
