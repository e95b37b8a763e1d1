/**
 * @module stores/sqlite/token-store
 * API tokens on the SQLite database the requests live in (`api_tokens`): the SQLite side of the `TokenStore`
 * contract in `tokens/token-store`.
 */
import type Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '../../api/errors.js';
import { uuidv7 } from '../../requests/ids.js';
import { translateSqliteErrors, withSqliteErrors } from './errors.js';
import type { Witness } from '../../audit/witness.js';
import { RowSeals, tokenRowMessage, type SignedRowAudit } from '../../audit/witnessed-rows.js';
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
  secret_sha256: string;
  signature: string | null;
  kid: string | null;
}

const COLUMNS =
  'id, name, scopes, as_identity, person, created_at, expires_at, revoked_at, secret_sha256, signature, kid';

/** Tokens on the SQLite database the requests live in. */
export class SqliteTokenStore implements TokenStore {
  private statements: ReturnType<SqliteTokenStore['prepare']> | null = null;
  private witness: Witness | null = null;
  private seals: RowSeals | null = null;

  constructor(private readonly sqlite: Database.Database) {
    // Callers see tollgate errors (conflict, busy, read-only…), never a SqliteError.
    return translateSqliteErrors(this);
  }

  /** Prepared on first use: a reader opening an older file without migrating it never touches the table. */
  private prepare() {
    const sqlite = this.sqlite;
    const sql = {
      insert: sqlite.prepare(
        'INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at, signature, kid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      byId: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`),
      bySecret: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_sha256 = ?`),
      byName: sqlite.prepare('SELECT id FROM api_tokens WHERE name = ?').pluck(),
      list: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      after: sqlite.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE id > ? ORDER BY id LIMIT ?`),
      revoke: sqlite.prepare(
        'UPDATE api_tokens SET revoked_at = ?, signature = ?, kid = ? WHERE id = ? AND revoked_at IS NULL',
      ),
    };
    const revokeRow = sqlite.transaction((id: string, at: string) => {
      const row = sql.byId.get(id) as TokenRow | undefined;
      if (!row) throw new NotFoundError(`no token with id ${id}`);
      if (row.revoked_at !== null) return;
      // Re-signed only when the row was witnessed as it is: signing an edited row would launder the edit.
      const revoked = { ...row, revoked_at: at };
      const seal = this.witness && !this.whyUnwitnessed(row) ? this.witness.signRow(messageOf(revoked)) : row;
      sql.revoke.run(at, seal.signature, seal.kid, id);
    });
    return { ...sql, revokeRow };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  /** Whether the file has tokens from before row signatures (migration 0025 not applied yet; false when new). */
  static predatesSigning(sqlite: Database.Database): boolean {
    const columns = sqlite.prepare("SELECT name FROM pragma_table_info('api_tokens')").pluck().all();
    return columns.length > 0 && !columns.includes('signature');
  }

  /**
   * Signs every unsigned row as it is, once, at the upgrade that added signatures (`OpenStores.signRowsAtUpgrade`):
   * the one place rows are signed as read back. Returns how many.
   */
  signUnsigned(witness: Witness): number {
    return this.sqlite
      .transaction(() => {
        const rows = this.sqlite
          .prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE signature IS NULL`)
          .all() as TokenRow[];
        for (const row of rows) {
          const seal = witness.signRow(messageOf(row));
          this.sqlite
            .prepare('UPDATE api_tokens SET signature = ?, kid = ? WHERE id = ?')
            .run(seal.signature, seal.kid, row.id);
        }
        return rows.length;
      })
      .immediate();
  }

  /** Signs the rows written from now on, and authenticates only witnessed rows (`audit/witnessed-rows.ts`). */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
    this.seals = witness ? new RowSeals(witness.keys) : null;
  }

  private whyUnwitnessed(row: TokenRow): string | null {
    // The row's columns as stored (seal included) determine its message: what a remembered row is known by.
    const print = JSON.stringify(Object.values(row));
    return this.seals ? this.seals.why('token', row.id, print, () => messageOf(row), row) : null;
  }

  async create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }> {
    if (this.sql.byName.get(token.name) !== undefined)
      throw new ConflictError(`a token named "${token.name}" exists already`);
    const secret = newTokenSecret();
    const id = uuidv7(now.getTime());
    const unsigned: TokenRow = {
      id,
      name: token.name,
      scopes: JSON.stringify(token.scopes),
      as_identity: token.as ?? null,
      person: token.person ?? null,
      created_at: now.toISOString(),
      expires_at: token.expiresAt?.toISOString() ?? null,
      revoked_at: null,
      secret_sha256: secretDigest(secret),
      signature: null,
      kid: null,
    };
    const row = this.witness ? { ...unsigned, ...this.witness.signRow(messageOf(unsigned)) } : unsigned;
    // Two replicas creating the same name at once both pass the check above; the unique index decides.
    withSqliteErrors(
      () =>
        this.sql.insert.run(
          row.id,
          row.name,
          row.secret_sha256,
          row.scopes,
          row.as_identity,
          row.person,
          row.created_at,
          row.expires_at,
          row.signature,
          row.kid,
        ),
      {
        conflict: `a token named "${token.name}" exists already`,
      },
    );
    return { token: fromRow(row), secret };
  }

  async authenticate(secret: string, now: Date): Promise<Principal | null> {
    const row = this.sql.bySecret.get(secretDigest(secret)) as TokenRow | undefined;
    return row && !this.whyUnwitnessed(row) ? usablePrincipal(fromRow(row), now) : null;
  }

  async list(): Promise<ApiToken[]> {
    return (this.sql.list.all() as TokenRow[]).map(fromRow);
  }

  /** Rows with `id > afterId`, by id, up to `limit`, as `audit verify` checks them. */
  async audits(afterId: string, limit: number): Promise<SignedRowAudit[]> {
    return (this.sql.after.all(afterId, limit) as TokenRow[]).map((row) => ({
      kind: 'token',
      id: row.id,
      owner: row.name,
      message: messageOf(row),
      kid: row.kid,
      signature: row.signature,
    }));
  }

  async revoke(id: string, now: Date): Promise<void> {
    this.sql.revokeRow(id, now.toISOString());
  }
}

function messageOf(row: TokenRow): Buffer {
  let scopes: string[];
  try {
    scopes = JSON.parse(row.scopes) as string[];
  } catch {
    // Not JSON: no tollgate wrote it; signed over the text, it matches no signature (verify names it, never throws).
    scopes = [row.scopes];
  }
  return tokenRowMessage({ ...fromRow({ ...row, scopes: '[]' }), scopes, secretSha256: row.secret_sha256 });
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
