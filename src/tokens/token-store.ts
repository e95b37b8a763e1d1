/**
 * @module tokens/token-store
 * API tokens in the database (`api_tokens`). Every authentication reads the row, so a revocation or an expiry takes
 * effect at once on every gateway process sharing the database; the lookup is one indexed read of a SHA-256.
 *
 * @remarks Left out on purpose: the tokens of `TOLLGATE_API_TOKENS` (admin tokens from the environment, checked by
 * the HTTP layer before this store) and any in-memory cache (a cache would delay revocations on other replicas).
 */
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '../api/errors.js';
import { uuidv7 } from '../requests/ids.js';
import { translateSqliteErrors, withSqliteErrors } from '../stores/sqlite/errors.js';
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
 * Where API tokens live: the database the requests live in, whatever its dialect (`SqliteTokenStore` here,
 * `PostgresTokenStore` in `stores/postgres/`). Async because a network database answers later.
 */
export interface TokenStore {
  /** Creates a token; returns it with its secret (the only time the secret is seen). Names are unique forever. */
  create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }>;
  /** The caller a secret belongs to, or null when it is unknown, revoked or expired. */
  authenticate(secret: string, now: Date): Promise<Principal | null>;
  /** Every token, oldest first, without secrets. */
  list(): Promise<ApiToken[]>;
  /** Revokes a token at once; revoking twice is fine. Throws {@link NotFoundError} for an unknown id. */
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
  if (token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt <= now) || isReservedTokenName(token.name)) return null;
  return { id: token.id, name: token.name, scopes: token.scopes, as: token.as, person: token.person };
}

/** SHA-256 hex of a secret: what the table keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

interface TokenRow {
  id: string;
  name: string;
  scopes: string;
  as_identity: string | null;
  person: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = 'id, name, scopes, as_identity, person, created_at, expires_at, revoked_at';

/** Tokens on the SQLite database the requests live in. */
export class SqliteTokenStore implements TokenStore {
  private readonly sql;

  constructor(sqlite: Database.Database) {
    this.sql = {
      insert: sqlite.prepare(
        'INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      bySecret: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_sha256 = ?`),
      byName: sqlite.prepare('SELECT id FROM api_tokens WHERE name = ?').pluck(),
      list: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      revoke: sqlite.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      exists: sqlite.prepare('SELECT id FROM api_tokens WHERE id = ?').pluck(),
    };
    // Callers see tollgate errors (conflict, busy, read-only…), never a SqliteError.
    return translateSqliteErrors(this);
  }

  async create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }> {
    if (this.sql.byName.get(token.name) !== undefined) throw new ConflictError(`a token named "${token.name}" exists already`);
    const secret = newTokenSecret();
    const id = uuidv7(now.getTime());
    const row: TokenRow = {
      id,
      name: token.name,
      scopes: JSON.stringify(token.scopes),
      as_identity: token.as ?? null,
      person: token.person ?? null,
      created_at: now.toISOString(),
      expires_at: token.expiresAt?.toISOString() ?? null,
      revoked_at: null,
    };
    // Two replicas creating the same name at once both pass the check above; the unique index decides.
    withSqliteErrors(() => this.sql.insert.run(row.id, row.name, secretDigest(secret), row.scopes, row.as_identity, row.person, row.created_at, row.expires_at), {
      conflict: `a token named "${token.name}" exists already`,
    });
    return { token: fromRow(row), secret };
  }

  async authenticate(secret: string, now: Date): Promise<Principal | null> {
    const row = this.sql.bySecret.get(secretDigest(secret)) as TokenRow | undefined;
    return row ? usablePrincipal(fromRow(row), now) : null;
  }

  async list(): Promise<ApiToken[]> {
    return (this.sql.list.all() as TokenRow[]).map(fromRow);
  }

  async revoke(id: string, now: Date): Promise<void> {
    if (this.sql.exists.get(id) === undefined) throw new NotFoundError(`no token with id ${id}`);
    this.sql.revoke.run(now.toISOString(), id);
  }
}

function fromRow(row: TokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    as: row.as_identity,
    person: row.person,
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}
