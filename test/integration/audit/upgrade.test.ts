/**
 * A database from before the fifth stage: its events carry no receipts. The first start holding the key integrates
 * them and closes them with a signed `legacy` checkpoint (n = 1); verify checks that part by the older rules and
 * everything after by receipts. Nothing is re-hashed at a later start: an edit of an old event stays named, and a
 * deleted checkpoint is not signed again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { openStores } from '../../../src/stores/open-store.js';
import { file, vote } from '../../contracts/store-fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let dir: string;
let path: string;
let t: TestServer | undefined;

const raw = (sql: string) => {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
};
const verify = async () =>
  (await (await t!.api('/v1/audit/verify')).json()) as {
    ok: boolean;
    events: number;
    legacy: { size: number } | null;
    problem: { kind: string; message: string } | null;
  };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-upgrade-'));
  path = join(dir, 'tollgate.db');
  // An older tollgate: it wrote events with no leaf and no receipt (a store with no witness writes the same rows).
  const stores = await openStores(path);
  const a = await file(stores.store, { toolName: 'deploy' }, new Date());
  await stores.store.decide(a.id, vote('web:alice', 'approve', 10, { at: new Date() }));
  await file(stores.store, { toolName: 'rm' }, new Date());
  await stores.close();
  // What the upgrade's migration recorded: the newest event written before it.
  raw('UPDATE chain_head SET legacy = (SELECT max(id) FROM confirmation_events)');
  t = await startTestServer({ dbPath: path });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('closes the older events under a signed legacy checkpoint, then witnesses the new ones', async () => {
  const created = await t!.api('/v1/requests', { body: { tool_name: 'new', tool_args: {}, approvers: ['web:bob'] } });
  expect(created.status).toBe(201);
  const report = await verify();
  expect(report).toMatchObject({ ok: true, legacy: { size: 3 }, problem: null });
  expect(report.events).toBe(5);
});

it('names an edit of an older event at any later start, and signs no deleted checkpoint again', async () => {
  expect((await verify()).ok).toBe(true);
  await t!.close();
  raw(`UPDATE confirmation_events SET type = 'denied' WHERE type = 'approved'`);
  raw(`DELETE FROM audit_marks WHERE name = 'chain_started'`);
  t = await startTestServer({ dbPath: path });
  expect((await verify()).problem).toMatchObject({ kind: 'edited' });
  await t.close();
  raw(`DELETE FROM chain_checkpoints`);
  t = await startTestServer({ dbPath: path });
  const { problem } = await verify();
  expect(problem?.kind).toMatch(/edited|unwitnessed|bad_checkpoint/);
});
