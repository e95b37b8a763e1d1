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
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** A row as the queries below select it: exactly the listed shape of a token. */
type TokenRow = ApiToken;

const COLUMNS =
  'id, name, scopes, as_identity AS "as", person, created_at AS "createdAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"';

/** Tokens on the PostgreSQL database the requests live in. */
export class PostgresTokenStore implements TokenStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async create(token: NewToken, now: Date): Promise<{ token: ApiToken; secret: string }> {
    const secret = newTokenSecret();
    const row: TokenRow = {
      id: uuidv7(now.getTime()),
      name: token.name,
      scopes: token.scopes,
      as: token.as ?? null,
      person: token.person ?? null,
      createdAt: now,
      expiresAt: token.expiresAt ?? null,
      revokedAt: null,
    };
    await withPostgresErrors(
      () =>
        this.open.pool.query(
          'INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8)',
          [
            row.id,
            row.name,
            secretDigest(secret),
            JSON.stringify(row.scopes),
            row.as,
            row.person,
            row.createdAt,
            row.expiresAt,
          ],
        ),
      { conflict: `a token named "${token.name}" exists already` },
    );
    return { token: row, secret };
  }

  async authenticate(secret: string, now: Date): Promise<Principal | null> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE secret_sha256 = $1`, [
        secretDigest(secret),
      ]),
    );
    return rows[0] ? usablePrincipal(rows[0], now) : null;
  }

  async list(): Promise<ApiToken[]> {
    return (
      await withPostgresErrors(() =>
        this.open.pool.query<TokenRow>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      )
    ).rows;
  }

  async revoke(id: string, now: Date): Promise<void> {
    const { rows } = await withPostgresErrors(() =>
      // COALESCE keeps the first revocation's time; the row comes back either way, so an unknown id is told apart.
      this.open.pool.query('UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id', [
        id,
        now,
      ]),
    );
    if (rows.length === 0) throw new NotFoundError(`no token with id ${id}`);
  }
}
