/**
 * @module stores/postgres/token-store
 * API tokens on PostgreSQL (`api_tokens`), the twin of `SqliteTokenStore`: every authentication reads the row, so a
 * revocation on one replica holds at once on all of them. Names are unique by index, so two replicas creating the
 * same name at once give one token and one 409.
 */
import { NotFoundError } from '../../api/errors.js';
import {
  newTokenSecret,
  secretDigest,
  usablePrincipal,
  type ApiToken,
  type NewToken,
  type TokenStore,
} from '../../tokens/token-store.js';
import type { Principal } from '../../tokens/scopes.js';
import { uuidv7 } from '../../requests/ids.js';
import type { Witness } from '../../audit/witness.js';
import { RowSeals, tokenRowMessage, type RowSeal, type SignedRowAudit } from '../../audit/witnessed-rows.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { signUnsignedRows } from './row-seals.js';
import { inTransaction } from './transaction.js';

/** A row as the queries below select it: the listed shape of a token, what it is signed over, and its seal. */
type TokenRow = ApiToken & RowSeal & { secretSha256: string };

const COLUMNS =
  'id, name, scopes, as_identity AS "as", person, created_at AS "createdAt", expires_at AS "expiresAt", revoked_at AS "revokedAt", secret_sha256 AS "secretSha256", signature, kid';

/** The token as listed, without what the store keeps beside it. */
const listed = ({ id, name, scopes, as, person, createdAt, expiresAt, revokedAt }: TokenRow): ApiToken => ({
  id,
  name,
  scopes,
  as,
  person,
  createdAt,
  expiresAt,
  revokedAt,
});

/** Tokens on the PostgreSQL database the requests live in. */
export class PostgresTokenStore implements TokenStore {
  private witness: Witness | null = null;
  private seals: RowSeals | null = null;

  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  /** Signs the rows written from now on, and authenticates only witnessed rows (`audit/witnessed-rows.ts`). */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
    this.seals = witness ? new RowSeals(witness.keys) : null;
  }

  /** Whether the database has tokens from before row signatures (migration 0024 not applied yet; false when new). */
  static async predatesSigning(open: Pick<OpenPostgres, 'pool'>): Promise<boolean> {
    const { rows } = await withPostgresErrors(() =>
      open.pool.query<{ name: string }>(
        "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'api_tokens'",
      ),
    );
    return rows.length > 0 && !rows.some((r) => r.name === 'signature');
  }

  /**
   * Signs every unsigned row as it is, once, at the upgrade that added signatures (`OpenStores.signRowsAtUpgrade`):
   * the one place rows are signed as read back. Returns how many.
   */
  async signUnsigned(witness: Witness): Promise<number> {
    return signUnsignedRows<TokenRow>(this.open.pool, 'api_tokens', COLUMNS, tokenRowMessage, witness);
  }

  private whyUnwitnessed(row: TokenRow): string | null {
    // The row as read (seal included) determines its message: what a remembered row is known by.
    const print = JSON.stringify(Object.values(row));
    return this.seals ? this.seals.why('token', row.id, print, () => tokenRowMessage(row), row) : null;
  }

  async create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }> {
    const secret = newTokenSecret();
    const unsigned: TokenRow = {
      id: uuidv7(now.getTime()),
      name: token.name,
      scopes: token.scopes,
      as: token.as ?? null,
      person: token.person ?? null,
      createdAt: now,
      expiresAt: token.expiresAt ?? null,
      revokedAt: null,
      secretSha256: secretDigest(secret),
      signature: null,
      kid: null,
    };
    const row = this.witness ? { ...unsigned, ...this.witness.signRow(tokenRowMessage(unsigned)) } : unsigned;
    await withPostgresErrors(
      () =>
        this.open.pool.query(
          'INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at, signature, kid) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10)',
          [
            row.id,
            row.name,
            row.secretSha256,
            JSON.stringify(row.scopes),
            row.as,
            row.person,
            row.createdAt,
            row.expiresAt,
            row.signature,
            row.kid,
          ],
        ),
      { conflict: `a token named "${token.name}" exists already` },
    );
    return { token: listed(row), secret };
  }

  async authenticate(secret: string, now: Date): Promise<Principal | null> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_sha256 = $1`, [
        secretDigest(secret),
      ]),
    );
    return rows[0] && !this.whyUnwitnessed(rows[0]) ? usablePrincipal(rows[0], now) : null;
  }

  async list(): Promise<ApiToken[]> {
    return (
      await withPostgresErrors(() =>
        this.open.pool.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      )
    ).rows.map(listed);
  }

  /** Rows with `id > afterId`, by id, up to `limit`, as `audit verify` checks them. */
  async audits(afterId: string, limit: number): Promise<SignedRowAudit[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE id > $1 ORDER BY id LIMIT $2`, [
        afterId,
        limit,
      ]),
    );
    return rows.map((row) => ({
      kind: 'token',
      id: row.id,
      owner: row.name,
      message: tokenRowMessage(row),
      kid: row.kid,
      signature: row.signature,
    }));
  }

  /** Under the row's lock: the revocation and its signature are one write, however many replicas revoke at once. */
  async revoke(id: string, now: Date): Promise<void> {
    await inTransaction(this.open.pool, async (client) => {
      const { rows } = await client.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE id = $1 FOR UPDATE`, [id]);
      const row = rows[0];
      if (!row) throw new NotFoundError(`no token with id ${id}`);
      if (row.revokedAt !== null) return;
      // Re-signed only when the row was witnessed as it is: signing an edited row would launder the edit.
      const revoked = { ...row, revokedAt: now };
      const seal = this.witness && !this.whyUnwitnessed(row) ? this.witness.signRow(tokenRowMessage(revoked)) : row;
      await client.query('UPDATE api_tokens SET revoked_at = $2, signature = $3, kid = $4 WHERE id = $1', [
        id,
        now,
        seal.signature,
        seal.kid,
      ]);
    });
  }
}
