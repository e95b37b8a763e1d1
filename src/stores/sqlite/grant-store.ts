/**
 * @module stores/sqlite/grant-store
 * {@link GrantStore} on the SQLite database the requests live in (table `grants`). A handful of statements prepared
 * once; errors become tollgate errors at the boundary, as in the other SQLite stores.
 */
import type Database from 'better-sqlite3';
import { translateSqliteErrors } from './errors.js';
import type { Grant, GrantStore, NewGrant } from '../../policy/grants.js';
import { RECEIPT_COLUMNS } from '../../audit/read-back.js';
import type { KeyRing } from '../../audit/witness.js';
import { GRANT_EVENT_TYPES, witnessedGrants, type GrantEventRow } from '../../audit/witnessed-grants.js';

interface GrantRow {
  id: string;
  rule: string;
  label: string;
  scope: string;
  request_id: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  uses: number;
}

const LIVE = 'revoked_at IS NULL AND expires_at > ?';

/** `?`: a JSON array of grant ids; the events naming each on its request, with their receipts (shared with verify). */
export const GRANT_EVENTS = `SELECT g.id AS grantId, e.seq, e.request_id AS requestId, e.type, e.actor, e.channel, e.detail, e.at, ${RECEIPT_COLUMNS}
  FROM grants g JOIN confirmation_events e ON e.request_id = g.request_id
    AND e.type IN (${GRANT_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}) AND json_extract(e.detail, '$.grant') = g.id
  LEFT JOIN audit_receipts r ON r.id = e.receipt_id
  WHERE g.id IN (SELECT value FROM json_each(?))`;

function prepare(sqlite: Database.Database) {
  return {
    insert: sqlite.prepare(
      'INSERT INTO grants (id, rule, label, scope, request_id, created_by, created_at, expires_at, uses) VALUES (@id, @rule, @label, @scope, @request_id, @created_by, @created_at, @expires_at, 0)',
    ),
    get: sqlite.prepare('SELECT * FROM grants WHERE id = ?'),
    active: sqlite.prepare(`SELECT * FROM grants WHERE rule = ? AND ${LIVE} ORDER BY created_at DESC, id DESC`),
    use: sqlite.prepare('UPDATE grants SET uses = uses + 1 WHERE id = ?'),
    live: sqlite.prepare(`SELECT * FROM grants WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT ?`),
    all: sqlite.prepare('SELECT * FROM grants ORDER BY created_at DESC, id DESC LIMIT ?'),
    revoke: sqlite.prepare(`UPDATE grants SET revoked_at = ?, revoked_by = ? WHERE id = ? AND ${LIVE}`),
    /** `?`: a JSON array of grant ids; the events naming each on its request, with their receipts. */
    events: sqlite.prepare(GRANT_EVENTS),
  };
}

/** Grants on SQLite. */
export class SqliteGrantStore implements GrantStore {
  private statements: ReturnType<typeof prepare> | null = null;
  /** Set while a gateway witnesses writes: only grants it witnessed are acted on (`audit/witnessed-grants.ts`). */
  keys: KeyRing | null = null;

  constructor(private readonly sqlite: Database.Database) {
    // Callers see tollgate errors (busy, read-only…), never a SqliteError.
    return translateSqliteErrors(this);
  }

  /** Prepared on first use: a reader that opens an older database without migrating (`tollgate audit`) never needs them. */
  private get sql() {
    return (this.statements ??= prepare(this.sqlite));
  }

  async create(grant: NewGrant): Promise<Grant> {
    this.sql.insert.run({
      id: grant.id,
      rule: grant.rule,
      label: grant.label,
      scope: JSON.stringify(grant.scope),
      request_id: grant.requestId,
      created_by: grant.createdBy,
      created_at: grant.createdAt.toISOString(),
      expires_at: grant.expiresAt.toISOString(),
    });
    return { ...grant, revokedAt: null, revokedBy: null, uses: 0 };
  }

  async get(id: string): Promise<Grant | null> {
    const row = this.sql.get.get(id) as GrantRow | undefined;
    return row ? fromRow(row) : null;
  }

  async active(rule: string, now: Date): Promise<Grant[]> {
    const live = (this.sql.active.all(rule, now.toISOString()) as GrantRow[]).map(fromRow);
    if (!this.keys || !live.length) return live;
    const events = this.sql.events.all(JSON.stringify(live.map((g) => g.id))) as GrantEventRow[];
    return witnessedGrants(live, events, this.keys);
  }

  async recordUse(id: string): Promise<void> {
    this.sql.use.run(id);
  }

  async list(query: { now: Date; all?: boolean; limit?: number }): Promise<Grant[]> {
    const limit = query.limit ?? 500;
    const rows = query.all ? this.sql.all.all(limit) : this.sql.live.all(query.now.toISOString(), limit);
    return (rows as GrantRow[]).map(fromRow);
  }

  async revoke(id: string, by: string, at: Date): Promise<{ grant: Grant; revoked: boolean } | null> {
    const revoked = this.sql.revoke.run(at.toISOString(), by, id, at.toISOString()).changes === 1;
    const grant = await this.get(id);
    return grant ? { grant, revoked } : null;
  }
}

function fromRow(row: GrantRow): Grant {
  return {
    id: row.id,
    rule: row.rule,
    label: row.label,
    scope: JSON.parse(row.scope) as Record<string, unknown>,
    requestId: row.request_id,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
    revokedBy: row.revoked_by,
    uses: row.uses,
  };
}
