/**
 * @module stores/postgres/grant-store
 * {@link GrantStore} on PostgreSQL (table `grants`), the twin of `SqliteGrantStore`. `uses` is incremented in the
 * database (`uses = uses + 1`), so replicas using one grant at once count every use.
 */
import type { Grant, GrantStore, NewGrant } from '../../policy/grants.js';
import { RECEIPT_COLUMNS } from '../../audit/read-back.js';
import type { KeyRing } from '../../audit/witness.js';
import { GRANT_EVENT_TYPES, witnessedGrants, type GrantEventRow } from '../../audit/witnessed-grants.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { selectList } from './rows.js';
import { grants } from './schema.js';

const GRANT = selectList(grants);
const LIVE = 'revoked_at IS NULL AND expires_at > $1';
/** The events naming each grant of `$1` (types `$2`) on its request, with their receipts (shared with verify). */
export const GRANT_EVENTS = `SELECT g.id AS "grantId", e.seq, e.request_id AS "requestId", e.type, e.actor, e.channel, e.detail::text AS detail,
    tollgate_chain_time(e.at) AS at, ${RECEIPT_COLUMNS}
  FROM grants g JOIN confirmation_events e ON e.request_id = g.request_id
    AND e.type = ANY($2::text[]) AND e.detail->>'grant' = g.id
  LEFT JOIN audit_receipts r ON r.id = e.receipt_id
  WHERE g.id = ANY($1::text[])`;

/** Grants on PostgreSQL. */
export class PostgresGrantStore implements GrantStore {
  /** Set while a gateway witnesses writes: only grants it witnessed are acted on (`audit/witnessed-grants.ts`). */
  keys: KeyRing | null = null;

  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  private async rows(sql: string, params: unknown[]): Promise<Grant[]> {
    return (await withPostgresErrors(() => this.open.pool.query<Grant>(sql, params))).rows;
  }

  async create(grant: NewGrant): Promise<Grant> {
    await withPostgresErrors(() =>
      this.open.pool.query(
        'INSERT INTO grants (id, rule, label, scope, request_id, created_by, created_at, expires_at, uses) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, 0)',
        [
          grant.id,
          grant.rule,
          grant.label,
          JSON.stringify(grant.scope),
          grant.requestId,
          grant.createdBy,
          grant.createdAt,
          grant.expiresAt,
        ],
      ),
    );
    return { ...grant, revokedAt: null, revokedBy: null, uses: 0 };
  }

  async get(id: string): Promise<Grant | null> {
    return (await this.rows(`SELECT ${GRANT} FROM grants WHERE id = $1`, [id]))[0] ?? null;
  }

  async active(rule: string, now: Date): Promise<Grant[]> {
    const live = await this.rows(
      `SELECT ${GRANT} FROM grants WHERE ${LIVE} AND rule = $2 ORDER BY created_at DESC, id DESC`,
      [now, rule],
    );
    if (!this.keys || !live.length) return live;
    const ids = live.map((g) => g.id);
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<GrantEventRow>(GRANT_EVENTS, [ids, GRANT_EVENT_TYPES]),
    );
    return witnessedGrants(live, rows, this.keys);
  }

  async recordUse(id: string): Promise<void> {
    await withPostgresErrors(() => this.open.pool.query('UPDATE grants SET uses = uses + 1 WHERE id = $1', [id]));
  }

  async list(query: { now: Date; all?: boolean; limit?: number }): Promise<Grant[]> {
    const limit = query.limit ?? 500;
    return query.all
      ? this.rows(`SELECT ${GRANT} FROM grants ORDER BY created_at DESC, id DESC LIMIT $1`, [limit])
      : this.rows(`SELECT ${GRANT} FROM grants WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT $2`, [
          query.now,
          limit,
        ]);
  }

  async revoke(id: string, by: string, at: Date): Promise<{ grant: Grant; revoked: boolean } | null> {
    const { rowCount } = await withPostgresErrors(() =>
      this.open.pool.query(`UPDATE grants SET revoked_at = $1, revoked_by = $2 WHERE id = $3 AND ${LIVE}`, [
        at,
        by,
        id,
      ]),
    );
    const grant = await this.get(id);
    return grant ? { grant, revoked: rowCount === 1 } : null;
  }
}
