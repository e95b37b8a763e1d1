/**
 * The audit chain on both dialects: the database chains every event as it is inserted, `verifyAudit` accepts an
 * untouched database and names the first broken link after each kind of tampering (an edited event, a deleted one,
 * one inserted mid-chain, two swapped, a request's fields edited, a status flipped in the requests table only), and
 * replicas writing at once keep one valid chain. Requests are filed now: on PostgreSQL the deadline is the database's clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventHashOfColumns } from '../../../src/audit/encoding.js';
import { verifyAudit } from '../../../src/audit/verify.js';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { createBatchParams } from '../../../src/stores/postgres/creates.js';
import { SQL_TEXT } from '../../../src/stores/postgres/statements.js';
import { file, newRequest, vote } from '../../contracts/store-fixtures.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

interface Dialect {
  name: 'sqlite' | 'postgres';
  open(): Promise<OpenStores>;
  /** Runs raw SQL against the database behind the last opened stores (tampering, as someone with write access). */
  sql(text: string): Promise<void>;
  /** How to write a JSON value into `detail`. */
  json(value: string): string;
  /** Other stores on the same database: another process's connection. */
  openAnother(): Promise<OpenStores>;
  cleanup(): Promise<void>;
}

let pg: FreshDatabase | undefined;
afterAll(async () => {
  await pg?.drop();
});

const sqlite = (): Dialect => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-chain-'));
  let opened: OpenStores | null = null;
  return {
    name: 'sqlite',
    async open() {
      return (opened = await openStores(join(dir, 'tollgate.db')));
    },
    async sql(text) {
      const { Database } = await import('../../../src/stores/sqlite/driver.js');
      const raw = new Database(join(dir, 'tollgate.db'));
      // Someone with write access can register the chain's function too: the chain must catch them anyway.
      raw.function('tollgate_event_hash', { varargs: true }, eventHashOfColumns as (...args: unknown[]) => string);
      raw.exec(text);
      raw.close();
    },
    json: (value) => `'${value}'`,
    openAnother: () => openStores(join(dir, 'tollgate.db')),
    async cleanup() {
      await opened?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const postgres = (): Dialect => {
  let opened: OpenStores | null = null;
  return {
    name: 'postgres',
    async open() {
      pg ??= await freshDatabase({ migrate: true });
      await withClient(pg.url, (c) =>
        c.query('TRUNCATE confirmation_events, channel_messages, confirmation_requests RESTART IDENTITY CASCADE'),
      );
      return (opened = await openStores(pg.url));
    },
    async sql(text) {
      await withClient(pg!.url, (c) => c.query(text));
    },
    json: (value) => `'${value}'::jsonb`,
    openAnother: () => openStores(pg!.url),
    async cleanup() {
      await opened?.close();
    },
  };
};

describe.each([sqlite, postgres])('audit chain: %o', (makeDialect) => {
  let dialect: Dialect;
  let stores: OpenStores;
  /** Three requests: approved (events 1–2), denied (3–4), pending (5). */
  let ids: string[];

  beforeEach(async () => {
    dialect = makeDialect();
    stores = await dialect.open();
    const approved = await file(stores.store, { toolName: 'deploy', toolArgs: { env: 'prod' } }, new Date());
    await stores.store.decide(
      approved.id,
      vote('slack:U1', 'approve', 10, { approvedArgs: { env: 'staging' }, at: new Date() }),
    );
    const denied = await file(stores.store, { toolName: 'pay_invoice' }, new Date());
    await stores.store.decide(denied.id, vote('web:alice', 'deny', 20, { reason: 'not this month', at: new Date() }));
    const pending = await file(stores.store, { toolName: 'rm' }, new Date());
    ids = [approved.id, denied.id, pending.id];
  });
  afterEach(async () => {
    await dialect.cleanup();
  });

  const verify = () => verifyAudit(stores.audit, stores.store);

  it('accepts the untouched database and names its head', async () => {
    const report = await verify();
    expect(report).toMatchObject({ ok: true, events: 5, requests: 3, problem: null, head: { eventId: 5 } });
    expect(report.head?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('finds an edited event', async () => {
    await dialect.sql(
      `UPDATE confirmation_events SET detail = ${dialect.json('{"reason":"fine by me"}')} WHERE id = 4`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 4 });
  });

  it('finds a deleted event', async () => {
    await dialect.sql('DELETE FROM confirmation_events WHERE id = 3');
    expect((await verify()).problem).toMatchObject({ kind: 'missing_or_inserted', eventId: 4 });
  });

  it('finds an event inserted mid-chain', async () => {
    await dialect.sql('UPDATE confirmation_events SET id = id + 100 WHERE id >= 3');
    await dialect.sql(
      `INSERT INTO confirmation_events (id, request_id, type, actor, channel, detail, at) SELECT 3, request_id, 'approved', 'web:mallory', 'web', ${dialect.json('{}')}, at FROM confirmation_events WHERE id = 103`,
    );
    // SQLite's trigger links the new row to event 2, so the break shows at the old event 3 (now 103); PostgreSQL's
    // links it to the newest event, so the break shows at the new row itself. Either way the insertion is named.
    const { problem } = await verify();
    expect(problem).toMatchObject({ kind: 'missing_or_inserted' });
    expect([3, 103]).toContain(problem?.eventId);
  });

  it('finds two events swapped', async () => {
    await dialect.sql(
      "UPDATE confirmation_events SET type = CASE id WHEN 2 THEN 'denied' ELSE 'approved' END WHERE id IN (2, 4)",
    );
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 2 });
  });

  it('finds a request whose tool was changed after filing (its created event covers it)', async () => {
    await dialect.sql(`UPDATE confirmation_requests SET tool_name = 'read_only' WHERE id = '${ids[0]}'`);
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 1 });
  });

  it('finds a status flipped in the requests table only, and edited approved arguments', async () => {
    await dialect.sql(
      `UPDATE confirmation_requests SET status = 'approved', allowed = ${dialect.name === 'postgres' ? 'true' : '1'} WHERE id = '${ids[1]}'`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', requestId: ids[1] });
    await dialect.sql(
      `UPDATE confirmation_requests SET status = 'denied', allowed = ${dialect.name === 'postgres' ? 'false' : '0'} WHERE id = '${ids[1]}'`,
    );
    expect((await verify()).problem).toBeNull();
    await dialect.sql(
      `UPDATE confirmation_requests SET approved_args = ${dialect.json('{"env":"prod"}')} WHERE id = '${ids[0]}'`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', requestId: ids[0] });
  });

  it('keeps one valid chain while two connections write at once', async () => {
    // On SQLite too a second connection: the store reads the chain's head itself, under the file's write lock.
    const second = await dialect.openAnother();
    try {
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const on = i % 2 ? second.store : stores.store;
          const request = await file(on, { toolName: `tool_${i}` }, new Date());
          await on.decide(request.id, vote(`web:user${i}`, i % 3 ? 'approve' : 'deny', 30, { at: new Date() }));
        }),
      );
      expect(await verify()).toMatchObject({ ok: true, events: 85, requests: 43 });
    } finally {
      await second.close();
    }
  });

  it('chains a row another writer inserts without its hash', async () => {
    await dialect.sql(
      `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) VALUES ('${ids[2]}', 'reminded', NULL, 'web', ${dialect.json('{}')}, '2026-11-25T10:00:00.000Z')`,
    );
    const request = await file(stores.store, { toolName: 'after_the_other_writer' }, new Date());
    await stores.store.decide(request.id, vote('web:bob', 'approve', 40, { at: new Date() }));
    expect(await verify()).toMatchObject({ ok: true, events: 8, problem: null });
  });
});

describe('audit chain on SQLite: the store hashes its own events', () => {
  it('writes each event with its hashes, without the trigger; the chain verifies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-chain-own-'));
    const stores = await openStores(join(dir, 'tollgate.db'));
    try {
      // Were the trigger still hashing the store's rows, it would call this function and the writes would fail.
      const connection = (stores.store as unknown as { open: { sqlite: Database.Database } }).open.sqlite;
      connection.function('tollgate_event_hash', { varargs: true }, () => {
        throw new Error('the trigger ran');
      });
      const request = await file(stores.store, { toolName: 'deploy', toolArgs: { env: 'prod' } }, new Date());
      await stores.store.decide(request.id, vote('slack:U1', 'approve', 10, { at: new Date() }));
      await stores.store.appendEvent(request.id, {
        type: 'executed',
        actor: 'agent',
        channel: null,
        detail: { ok: true },
        at: new Date(),
      });
      expect(await verifyAudit(stores.audit, stores.store)).toMatchObject({ ok: true, events: 3, problem: null });
      expect(() =>
        connection.exec(
          `INSERT INTO confirmation_events (request_id, type, detail, at) VALUES ('${request.id}', 'reminded', '{}', '2026-11-25T10:00:00.000Z')`,
        ),
      ).toThrow('the trigger ran');
    } finally {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit chain on PostgreSQL: many events in one transaction', () => {
  // The trigger reads the chain's head once per transaction and remembers the rows it adds; these are the two ways a
  // remembered head could go stale, and the chain must not notice either.
  it('stays one chain across a savepoint rolled back and a row given an id that ON CONFLICT skipped', async () => {
    pg ??= await freshDatabase({ migrate: true });
    await withClient(pg.url, (c) =>
      c.query('TRUNCATE confirmation_events, channel_messages, confirmation_requests RESTART IDENTITY CASCADE'),
    );
    const stores = await openStores(pg.url);
    try {
      const { id } = await file(stores.store, { toolName: 'deploy' }, new Date());
      const event = (extra = '') =>
        `INSERT INTO confirmation_events (${extra ? 'id, ' : ''}request_id, type, actor, channel, detail, at)
         VALUES (${extra ? `${extra}, ` : ''}'${id}', 'delivered', NULL, 'web', '{}'::jsonb, now())`;
      await withClient(pg.url, async (c) => {
        await c.query('BEGIN');
        await c.query(event());
        await c.query('SAVEPOINT s');
        await c.query(event());
        await c.query('ROLLBACK TO SAVEPOINT s');
        await c.query(event());
        await c.query(`${event('1')} ON CONFLICT (id) DO NOTHING`);
        await c.query(event());
        await c.query('COMMIT');
      });
      expect(await verifyAudit(stores.audit, stores.store)).toMatchObject({
        ok: true,
        events: 4,
        problem: null,
        head: { eventId: 4 },
      });
    } finally {
      await stores.close();
    }
  });
  // A batched create chains its own events (migration 0010) and skips the trigger: it must continue after the trigger's
  // rows and leave the next trigger-chained row a correct head, in one transaction, with a create whose key exists.
  it('stays one chain when a batched create runs between rows the trigger chains', async () => {
    pg ??= await freshDatabase({ migrate: true });
    await withClient(pg.url, (c) =>
      c.query('TRUNCATE confirmation_events, channel_messages, confirmation_requests RESTART IDENTITY CASCADE'),
    );
    const stores = await openStores(pg.url);
    try {
      const { id } = await file(stores.store, { toolName: 'deploy', idempotencyKey: 'k-1' }, new Date());
      const event = `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) VALUES ('${id}', 'delivered', NULL, 'web', '{"n": 1}'::jsonb, now())`;
      const web = { channel: 'web', target: 'web', sent: true };
      const batch = [
        { request: newRequest({ toolName: 'pay', idempotencyKey: 'k-2', userId: 'u1' }, new Date()), cards: [web] },
        { request: newRequest({ toolName: 'again', idempotencyKey: 'k-1' }, new Date()), cards: [web] },
        {
          request: newRequest({ toolName: 'rm', agentId: 'a1' }, new Date()),
          cards: [],
          extras: {
            detail: { note: 'ü' },
            events: [
              { type: 'delivered' as const, actor: null, channel: 'slack', detail: { target: 'C1' }, at: new Date() },
            ],
          },
        },
      ];
      await withClient(pg.url, async (c) => {
        await c.query('BEGIN');
        await c.query(event);
        const { rows } = await c.query<{ id: string }>(SQL_TEXT.create, createBatchParams(batch));
        expect(rows).toHaveLength(2);
        await c.query(event);
        await c.query('COMMIT');
      });
      // 1 created; 1 trigger row; pay: created + delivered; rm: created + its extra; 1 trigger row. The existing key: nothing.
      expect(await verifyAudit(stores.audit, stores.store)).toMatchObject({
        ok: true,
        events: 7,
        problem: null,
        head: { eventId: 7 },
      });
    } finally {
      await stores.close();
    }
  });
});
