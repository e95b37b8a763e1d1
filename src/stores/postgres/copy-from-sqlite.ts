/**
 * @module stores/postgres/copy-from-sqlite
 * Moves an existing SQLite database to PostgreSQL (`tollgate migrate --from ./data/tollgate.db --to postgres://…`):
 * every request, event, voter, card, API token and standing grant, ids kept, in one PostgreSQL transaction — a failure copies nothing.
 * Rows already in the target (same id) are left alone, so the copy can be run again after a partial start.
 *
 * @remarks Left out: copying while a gateway still writes to the SQLite file (stop it first), and the reverse way.
 */
import { rowToRequest } from '../sqlite/rows.js';
import type { OpenDatabase } from '../sqlite/database.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { REQUEST_INSERT, requestRecords } from './rows.js';
import { copyProof } from './copy-proof.js';

/** How many rows of each table the copy wrote (rows already in the target are not counted). */
export interface CopyCounts {
  requests: number;
  events: number;
  messages: number;
  tokens: number;
  grants: number;
}

type SqliteRow = Record<string, unknown>;

/**
 * Copies `source` (a migrated SQLite database) into `target` (a migrated PostgreSQL database).
 * @example const counts = await copySqliteToPostgres(openDatabase('./data/tollgate.db'), openPostgres(url));
 */
export async function copySqliteToPostgres(
  source: OpenDatabase,
  target: Pick<OpenPostgres, 'pool'>,
): Promise<CopyCounts> {
  const counts: CopyCounts = { requests: 0, events: 0, messages: 0, tokens: 0, grants: 0 };
  const rows = (sql: string) => source.sqlite.prepare(sql).iterate() as IterableIterator<SqliteRow>;
  return withPostgresErrors(async () => {
    const client = await target.pool.connect();
    let failed = false;
    try {
      await client.query('BEGIN');
      const insertRequest = `INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords} ON CONFLICT (id) DO NOTHING`;
      for (const row of rows(`SELECT ${requestSelect(source)} FROM confirmation_requests ORDER BY created_at, id`)) {
        counts.requests +=
          (
            await client.query(insertRequest, [
              requestRecords([rowToRequest(row as Parameters<typeof rowToRequest>[0])]),
            ])
          ).rowCount ?? 0;
      }
      // Events keep their place in the chain, their hashes, leaves and receipts: the proof moves with them (the leaf is of
      // the canonical detail and ISO time, which PostgreSQL's jsonb and timestamptz read back as the same values).
      for (const e of rows(
        'SELECT id, request_id, type, actor, channel, detail, at, seq, prev_hash, hash, leaf, receipt_id FROM confirmation_events ORDER BY id',
      )) {
        const result = await client.query(
          `INSERT INTO confirmation_events (id, request_id, type, actor, channel, detail, at, seq, prev_hash, hash, leaf, receipt_id)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
          [
            e.id,
            e.request_id,
            e.type,
            e.actor,
            e.channel,
            e.detail,
            e.at,
            e.seq,
            e.prev_hash,
            e.hash,
            e.leaf,
            e.receipt_id,
          ],
        );
        counts.events += result.rowCount ?? 0;
      }
      await copyProof(source, client);
      // Who voted on what without settling it (the audit query's `?person=`): derived from the events, copied as it is.
      for (const v of rows('SELECT person, request_created_at, request_id FROM confirmation_voters')) {
        await client.query(
          'INSERT INTO confirmation_voters (person, request_created_at, request_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [v.person, v.request_created_at, v.request_id],
        );
      }
      for (const m of rows(
        'SELECT id, request_id, channel, target, message_ref, status, attempts, last_error, updated_at FROM channel_messages ORDER BY id',
      )) {
        const result = await client.query(
          `INSERT INTO channel_messages (id, request_id, channel, target, message_ref, status, attempts, last_error, updated_at) OVERRIDING SYSTEM VALUE
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
          [m.id, m.request_id, m.channel, m.target, m.message_ref, m.status, m.attempts, m.last_error, m.updated_at],
        );
        counts.messages += result.rowCount ?? 0;
      }
      for (const t of rows(
        'SELECT id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at, revoked_at, signature, kid FROM api_tokens ORDER BY created_at, id',
      )) {
        // The signature travels with the row: it covers the same values, and the key goes along (`migrate` says how).
        const result = await client.query(
          `INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at, expires_at, revoked_at, signature, kid)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
          [
            t.id,
            t.name,
            t.secret_sha256,
            t.scopes,
            t.as_identity,
            t.person,
            t.created_at,
            t.expires_at,
            t.revoked_at,
            t.signature,
            t.kid,
          ],
        );
        counts.tokens += result.rowCount ?? 0;
      }
      for (const g of rows(
        'SELECT id, rule, label, scope, request_id, created_by, created_at, expires_at, revoked_at, revoked_by, uses FROM grants ORDER BY created_at, id',
      )) {
        const result = await client.query(
          `INSERT INTO grants (id, rule, label, scope, request_id, created_by, created_at, expires_at, revoked_at, revoked_by, uses)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
          [
            g.id,
            g.rule,
            g.label,
            g.scope,
            g.request_id,
            g.created_by,
            g.created_at,
            g.expires_at,
            g.revoked_at,
            g.revoked_by,
            g.uses,
          ],
        );
        counts.grants += result.rowCount ?? 0;
      }
      // The deployment's keys come along (web sessions, email links, Web Push): sessions stay valid. The verdict-signing
      // key comes along only from a database that still held it (from before key files); the key file beside the
      // SQLite database is not a row, and `tollgate migrate` says which TOLLGATE_SIGNING_KEY_FILE to set. A key
      // PostgreSQL already has wins.
      for (const k of rows('SELECT name, value, created_at FROM deployment_secrets ORDER BY name')) {
        await client.query(
          'INSERT INTO deployment_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
          [k.name, k.value, k.created_at],
        );
      }
      // Events copied from before the source's chain covered every column (docs/audit.md) stay checked as they were.
      const mark = source.sqlite
        .prepare("SELECT event_id, at FROM audit_marks WHERE name = 'coverage_started'")
        .get() as { event_id: number; at: string } | undefined;
      if (mark) {
        await client.query(
          `INSERT INTO audit_marks (name, event_id, at) VALUES ('coverage_started', $1, $2)
           ON CONFLICT (name) DO UPDATE SET event_id = greatest(audit_marks.event_id, EXCLUDED.event_id), at = greatest(audit_marks.at, EXCLUDED.at)`,
          [mark.event_id, mark.at],
        );
      }
      // And so do the sign-outs: the session key came along, so a session signed out before the move must stay out.
      for (const m of rows(
        `SELECT kind, key, expires_at FROM shared_marks WHERE expires_at > '${new Date().toISOString()}' ORDER BY kind, key`,
      )) {
        await client.query(
          'INSERT INTO shared_marks (kind, key, expires_at) VALUES ($1, $2, $3) ON CONFLICT (kind, key) DO NOTHING',
          [m.kind, m.key, m.expires_at],
        );
      }
      // Push subscriptions too: the VAPID key came along with the secrets, and the devices were subscribed with it.
      for (const d of rows(
        'SELECT id, person, account, endpoint, p256dh, auth, created_at FROM push_subscriptions ORDER BY created_at, id',
      )) {
        await client.query(
          'INSERT INTO push_subscriptions (id, person, account, endpoint, p256dh, auth, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
          [d.id, d.person, d.account, d.endpoint, d.p256dh, d.auth, d.created_at],
        );
      }
      // Ids were copied as they were: new rows must number after them.
      for (const table of ['channel_messages', 'confirmation_events']) {
        await client.query(
          `SELECT setval(pg_get_serial_sequence('${table}', 'id'), max(id)) FROM ${table} HAVING max(id) IS NOT NULL`,
        );
      }
      await client.query('COMMIT');
      return counts;
    } catch (error) {
      failed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release(failed);
    }
  });
}

/** The SQLite select list with the camelCase keys `rowToRequest` reads. */
function requestSelect(source: OpenDatabase): string {
  const columns = source.sqlite
    .prepare('SELECT name FROM pragma_table_info(?)')
    .pluck()
    .all('confirmation_requests') as string[];
  return columns
    .map((name) => `"${name}" AS "${name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())}"`)
    .join(', ');
}
