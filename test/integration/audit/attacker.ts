/**
 * The attacker of issue 57 — someone who can write the database but does not hold the signing key — as the attack
 * tests run them: a running gateway on either store, with raw SQL against its database.
 */
import { afterEach, beforeEach } from 'vitest';
import { leafOf } from '../../../src/audit/leaf.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

/** Raw SQL as the attacker runs it: positional parameters written `$1`, `$2`… in order, each used once. */
export type Raw = (sql: string, params?: unknown[]) => Promise<unknown[]>;

const sqliteRaw =
  (path: string): Raw =>
  async (sql, params = []) => {
    const db = new Database(path);
    try {
      const statement = db.prepare(sql.replace(/\$\d+/g, '?'));
      return statement.reader ? (statement.all(...params) as unknown[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  };

const postgresRaw =
  (url: string): Raw =>
  (sql, params = []) =>
    withClient(url, async (c) => (await c.query(sql, params)).rows as unknown[]);

/** What `audit verify` answers over HTTP. */
export interface VerifyAnswer {
  ok: boolean;
  problem: { kind: string; event_id: number | null; request_id: string | null; message: string } | null;
}

/**
 * A fresh gateway and database per test on `dialect` (verify names the first problem, so one attack must not hide the
 * next), and the attacker's raw access to it. Call inside a `describe`.
 */
export function attackedGateway(dialect: 'sqlite' | 'postgres', options: TestServerOptions = {}) {
  const state = {} as { t: TestServer; raw: Raw; pg?: FreshDatabase };
  beforeEach(async () => {
    if (dialect === 'postgres') {
      state.pg = await freshDatabase({ migrate: true });
      state.t = await startTestServer({ ...options, dbPath: state.pg.url });
      state.raw = postgresRaw(state.pg.url);
    } else {
      state.t = await startTestServer(options);
      state.raw = sqliteRaw(state.t.dbPath);
    }
  });
  afterEach(async () => {
    await state.t?.close();
    await state.pg?.drop();
    state.pg = undefined;
  });
  return {
    get t() {
      return state.t;
    },
    raw: (sql: string, params?: unknown[]) => state.raw(sql, params),
    /** A boolean as the store's column holds it. */
    bool: (value: boolean) => (dialect === 'postgres' ? value : value ? 1 : 0),
    verify: async () => (await (await state.t.api('/v1/audit/verify')).json()) as VerifyAnswer,
    read: async (id: string) =>
      (await (await state.t.api(`/v1/requests/${id}`)).json()) as {
        status: string;
        verdict_token: string | null;
        approvers: string[];
      },
    /**
     * An event row as the attacker writes it, with the leaf the public encoding gives (and a receipt id, if any).
     */
    appendEvent: async (
      id: string,
      type: string,
      detail: Record<string, unknown>,
      receiptId: string | null,
      actor = 'web:carol',
    ) => {
      const at = new Date().toISOString();
      const leaf = leafOf({ requestId: id, type, actor, channel: 'web', detail, at, request: null });
      await state.raw(
        `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id) VALUES ($1, $2, $3, 'web', $4, $5, $6, $7)`,
        [id, type, actor, JSON.stringify(detail), at, leaf, receiptId],
      );
      return { at, leaf };
    },
  };
}

/** The claims of a compact JWS. */
export const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
