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
import { ConflictError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../requests/ids.js';
import type { Principal, Scope } from './scopes.js';

/** A token as listed: everything but the secret, which is shown once at creation and never stored. */
export interface ApiToken {
  id: string;
  name: string;
  scopes: Scope[];
  as: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** What {@link TokenStore.create} takes. */
export interface NewToken {
  name: string;
  scopes: Scope[];
  as?: string | null;
  expiresAt?: Date | null;
}

/** Secrets start with this prefix so secret scanners and people recognise them. */
const SECRET_PREFIX = 'tg_';

/** SHA-256 hex of a secret: what the table keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

interface TokenRow {
  id: string;
  name: string;
  scopes: string;
  as_identity: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = 'id, name, scopes, as_identity, created_at, expires_at, revoked_at';

/** Tokens on the SQLite database the requests live in. */
export class TokenStore {
  private readonly sql;

  constructor(sqlite: Database.Database) {
    this.sql = {
      insert: sqlite.prepare(
        'INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      bySecret: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_sha256 = ?`),
      byName: sqlite.prepare('SELECT id FROM api_tokens WHERE name = ?').pluck(),
      list: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      revoke: sqlite.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      exists: sqlite.prepare('SELECT id FROM api_tokens WHERE id = ?').pluck(),
    };
  }

  /** Creates a token; returns it with its secret (the only time the secret is seen). Names are unique forever. */
  create(token: NewToken, now: Date): { token: ApiToken; secret: string } {
    if (this.sql.byName.get(token.name) !== undefined) throw new ConflictError(`a token named "${token.name}" exists already`);
    const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
    const id = uuidv7(now.getTime());
    const row: TokenRow = {
      id,
      name: token.name,
      scopes: JSON.stringify(token.scopes),
      as_identity: token.as ?? null,
      created_at: now.toISOString(),
      expires_at: token.expiresAt?.toISOString() ?? null,
      revoked_at: null,
    };
    this.sql.insert.run(row.id, row.name, secretDigest(secret), row.scopes, row.as_identity, row.created_at, row.expires_at);
    return { token: fromRow(row), secret };
  }

  /** The caller a secret belongs to, or null when it is unknown, revoked or expired. */
  authenticate(secret: string, now: Date): Principal | null {
    const row = this.sql.bySecret.get(secretDigest(secret)) as TokenRow | undefined;
    if (!row || row.revoked_at !== null) return null;
    if (row.expires_at !== null && row.expires_at <= now.toISOString()) return null;
    const token = fromRow(row);
    return { id: token.id, name: token.name, scopes: token.scopes, as: token.as };
  }

  /** Every token, oldest first, without secrets. */
  list(): ApiToken[] {
    return (this.sql.list.all() as TokenRow[]).map(fromRow);
  }

  /** Revokes a token at once; revoking twice is fine. Throws {@link NotFoundError} for an unknown id. */
  revoke(id: string, now: Date): void {
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
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}
