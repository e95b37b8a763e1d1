/**
 * The audit trail on both dialects (docs/audit.md, "The proof"): writers witness their events (leaves and one signed
 * receipt per transaction), the integrator places them after commit, and `verifyAudit` — against a pinned key —
 * accepts an untouched database and names the first problem after each kind of tampering by someone who can write the
 * database but does not hold the key: an edited, deleted, swapped or appended event, a request edited after filing,
 * a status flipped in the requests table only, a receipt edited, deleted or signed with another key, a checkpoint
 * deleted, the newest events cut. Replicas writing at once keep one order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { file, vote } from '../../contracts/store-fixtures.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';
import { witness } from './witnessed.js';

interface Dialect {
  name: 'sqlite' | 'postgres';
  open(): Promise<OpenStores>;
  /** Runs raw SQL against the database (tampering, as someone with write access and no key). */
  sql(text: string): Promise<void>;
  /** How to write a JSON value into `detail`. */
  json(value: string): string;
  /** How to write a boolean. */
  bool(value: boolean): string;
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
      raw.exec(text);
      raw.close();
    },
    json: (value) => `'${value}'`,
    bool: (value) => (value ? '1' : '0'),
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
      await withClient(pg.url, async (c) => {
        await c.query(
          'TRUNCATE confirmation_events, channel_messages, confirmation_requests, audit_receipts, chain_checkpoints, verdict_tokens RESTART IDENTITY CASCADE',
        );
        await c.query(
          "UPDATE chain_head SET size = 0, hash = repeat('0', 64), checkpoint = 0, checkpoint_at = NULL, checkpoint_size = 0, legacy = NULL",
        );
      });
      return (opened = await openStores(pg.url));
    },
    async sql(text) {
      await withClient(pg!.url, (c) => c.query(text));
    },
    json: (value) => `'${value}'::jsonb`,
    bool: (value) => String(value),
    openAnother: () => openStores(pg!.url),
    async cleanup() {
      await opened?.close();
    },
  };
};

describe.each([sqlite, postgres])('audit trail: %o', (makeDialect) => {
  let dialect: Dialect;
  let stores: OpenStores;
  let audit: Awaited<ReturnType<typeof witness>>;
  /** Three requests: approved (seq 1–2), denied (3–4), pending (5). */
  let ids: string[];

  beforeEach(async () => {
    dialect = makeDialect();
    stores = await dialect.open();
    audit = await witness(stores);
    const approved = await file(stores.store, { toolName: 'deploy', toolArgs: { env: 'prod' } }, new Date());
    await stores.store.decide(
      approved.id,
      vote('slack:U1', 'approve', 10, { approvedArgs: { env: 'staging' }, at: new Date() }),
    );
    const denied = await file(stores.store, { toolName: 'pay_invoice' }, new Date());
    await stores.store.decide(denied.id, vote('web:alice', 'deny', 20, { reason: 'not this month', at: new Date() }));
    const pending = await file(stores.store, { toolName: 'rm' }, new Date());
    ids = [approved.id, denied.id, pending.id];
    await audit.integrate();
  });
  afterEach(async () => {
    await dialect.cleanup();
  });

  const verify = () => audit.verify();
  /** The id of the event at `seq`. */
  const idAt = (seq: number) => `(SELECT id FROM confirmation_events WHERE seq = ${seq})`;

  it('accepts the untouched database, with every event under a receipt and the head signed', async () => {
    const report = await verify();
    expect(report).toMatchObject({ ok: true, events: 5, requests: 3, problem: null, head: { eventId: 5 } });
    expect(report.receipts).toBe(5);
    expect(report.checkpoints).toBe(1);
    expect(report.keys).toMatchObject({ source: 'pinned', kids: [audit.key.kid], warning: null });
  });

  it('finds an edited event', async () => {
    await dialect.sql(
      `UPDATE confirmation_events SET detail = ${dialect.json('{"reason":"fine by me"}')} WHERE id = ${idAt(4)}`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 4 });
  });

  it('finds an event whose leaf and hashes were recomputed after an edit (its receipt no longer holds)', async () => {
    await dialect.sql(`UPDATE confirmation_events SET type = 'approved', actor = 'web:mallory' WHERE id = ${idAt(4)}`);
    const { problem } = await verify();
    expect(problem).toMatchObject({ kind: 'edited', eventId: 4 });
  });

  it('finds a deleted event', async () => {
    await dialect.sql(`DELETE FROM confirmation_events WHERE id = ${idAt(3)}`);
    expect((await verify()).problem).toMatchObject({ kind: 'missing_or_inserted', eventId: 4 });
  });

  it('finds two events swapped', async () => {
    await dialect.sql(
      `UPDATE confirmation_events SET type = CASE seq WHEN 2 THEN 'denied' ELSE 'approved' END WHERE seq IN (2, 4)`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 2 });
  });

  it('finds a request whose tool was changed after filing (its created event covers it)', async () => {
    await dialect.sql(`UPDATE confirmation_requests SET tool_name = 'read_only' WHERE id = '${ids[0]}'`);
    expect((await verify()).problem).toMatchObject({ kind: 'edited', eventId: 1 });
  });

  it('finds a status flipped in the requests table only, and edited approved arguments', async () => {
    await dialect.sql(
      `UPDATE confirmation_requests SET status = 'approved', allowed = ${dialect.bool(true)} WHERE id = '${ids[1]}'`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', requestId: ids[1] });
    await dialect.sql(
      `UPDATE confirmation_requests SET status = 'denied', allowed = ${dialect.bool(false)} WHERE id = '${ids[1]}'`,
    );
    expect((await verify()).problem).toBeNull();
    await dialect.sql(
      `UPDATE confirmation_requests SET approved_args = ${dialect.json('{"env":"prod"}')} WHERE id = '${ids[0]}'`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', requestId: ids[0] });
  });

  it('finds an edited or deleted receipt', async () => {
    await dialect.sql(
      `UPDATE audit_receipts SET leaves = leaves || ',${'0'.repeat(64)}' WHERE id = (SELECT receipt_id FROM confirmation_events WHERE seq = 2)`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed' });
    await dialect.sql(
      `DELETE FROM audit_receipts WHERE id = (SELECT receipt_id FROM confirmation_events WHERE seq = 2)`,
    );
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed', eventId: 2 });
  });

  it('finds a deleted checkpoint, and the newest events cut with it', async () => {
    const more = await file(stores.store, { toolName: 'later' }, new Date());
    await audit.integrator.checkpointNow();
    expect((await verify()).checkpoints).toBe(2);
    await dialect.sql('DELETE FROM chain_checkpoints WHERE n = 1');
    expect((await verify()).problem).toMatchObject({
      kind: 'bad_checkpoint',
      message: expect.stringContaining('checkpoint 1 is missing'),
    });
    await dialect.sql(`DELETE FROM confirmation_events WHERE request_id = '${more.id}'`);
    await dialect.sql(`DELETE FROM confirmation_requests WHERE id = '${more.id}'`);
    expect((await verify()).problem?.kind).toMatch(/bad_checkpoint|missing_or_inserted/);
  });

  it('finds the newest events cut short of the newest checkpoint', async () => {
    const more = await file(stores.store, { toolName: 'later' }, new Date());
    await audit.integrator.checkpointNow();
    await dialect.sql(`DELETE FROM confirmation_events WHERE request_id = '${more.id}'`);
    await dialect.sql(`DELETE FROM confirmation_requests WHERE id = '${more.id}'`);
    expect((await verify()).problem).toMatchObject({
      kind: 'missing_or_inserted',
      message: expect.stringContaining('its newest events were cut'),
    });
  });

  it('keeps one order while two connections write at once', async () => {
    const second = await dialect.openAnother();
    second.useWitness(audit.witness);
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

  it('places an event another writer inserted, and names it: no receipt covers it', async () => {
    await dialect.sql(
      `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) VALUES ('${ids[2]}', 'reminded', NULL, 'web', ${dialect.json('{}')}, '2026-11-25T10:00:00.000Z')`,
    );
    const { problem } = await verify();
    expect(problem).toMatchObject({ kind: 'unwitnessed', eventId: 6, requestId: ids[2] });
    expect(problem?.message).toContain('covered by no signed receipt');
  });
});
