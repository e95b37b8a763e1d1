/**
 * The integrator on SQLite, where the head's lock is the file's write lock: a tick that finds another connection
 * holding it gives way at once (the interface's "held by another process") instead of waiting out the busy timeout
 * on the gateway's only thread and then failing with SQLITE_BUSY; a tick with nothing to do takes no write lock at
 * all. Nothing is lost: the events stay pending and the next tick places them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStores, type OpenStores } from '../../../src/stores/open-store.js';
import { Database, type SqliteConnection } from '../../../src/stores/sqlite/driver.js';
import { file } from '../../contracts/store-fixtures.js';
import { witness } from './witnessed.js';

let dir: string;
let stores: OpenStores;
let other: SqliteConnection;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-held-head-'));
  stores = await openStores(join(dir, 'tollgate.db'));
  other = new Database(join(dir, 'tollgate.db'));
});
afterEach(async () => {
  if (other.inTransaction) other.exec('ROLLBACK');
  other.close();
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

it('an idle tick takes no write lock: it completes while another connection holds it', async () => {
  const w = await witness(stores);
  await file(stores.store, { toolName: 'deploy' }, new Date());
  await w.integrate();
  other.exec('BEGIN IMMEDIATE');
  await expect(w.integrate()).resolves.toBeUndefined();
  expect(await stores.audit.pending()).toMatchObject({ events: 0 });
});

it('a tick that finds the head held gives way; the events wait and the next tick places them', async () => {
  const w = await witness(stores);
  await file(stores.store, { toolName: 'deploy' }, new Date());
  other.exec('BEGIN IMMEDIATE');
  // Before: the tick waited 5 s on the event loop, then rejected with SQLITE_BUSY.
  await expect(w.integrate()).resolves.toBeUndefined();
  expect(await stores.audit.pending()).toMatchObject({ events: 1 });
  other.exec('ROLLBACK');
  await w.integrate();
  expect(await stores.audit.pending()).toMatchObject({ events: 0 });
  expect((await w.verify()).ok).toBe(true);
});
