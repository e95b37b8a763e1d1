/**
 * @module stores/sqlite/token-store
 * API tokens on the SQLite database the requests live in (`api_tokens`): the SQLite side of the `TokenStore`
 * contract in `tokens/token-store`.
 */
import type Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '../../api/errors.js';
import { uuidv7 } from '../../requests/ids.js';
import { translateSqliteErrors, withSqliteErrors } from './errors.js';
import type { Principal, Scope } from '../../tokens/scopes.js';
import {
  newTokenSecret,
  secretDigest,
  usablePrincipal,
  type ApiToken,
  type NewToken,
  type TokenStore,
} from '../../tokens/token-store.js';

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
    if (this.sql.byName.get(token.name) !== undefined)
      throw new ConflictError(`a token named "${token.name}" exists already`);
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
    withSqliteErrors(
      () =>
        this.sql.insert.run(
          row.id,
          row.name,
          secretDigest(secret),
          row.scopes,
          row.as_identity,
          row.person,
          row.created_at,
          row.expires_at,
        ),
      {
        conflict: `a token named "${token.name}" exists already`,
      },
    );
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
