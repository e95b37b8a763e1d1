import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import { applyMigrations, openDatabase, type OpenDatabase } from '../../../src/stores/sqlite/database.js';
import { newConfirmationRequest } from '../../../src/requests/new-request.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';

let dir: string;
let db: OpenDatabase;
let store: SqliteConfirmationStore;
const defaults = { timeoutS: 300, channels: [{ type: 'web' }], options: ['Approve', 'Deny'], onTimeout: 'deny' as const };
const make = (idempotencyKey?: string) => newConfirmationRequest({ toolName: 'x', idempotencyKey }, defaults, [{ type: 'web' }], argsSha256('x', {}), new Date());

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-store-'));
  db = openDatabase(join(dir, 't.db'));
  applyMigrations(db);
  store = new SqliteConfirmationStore(db);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('store: creates committed together', () => {
  it('stores every request of a burst, each with its created event, and answers only once committed', async () => {
    const requests = Array.from({ length: 200 }, () => make());
    const results = await Promise.all(requests.map((r) => store.create(r, [{ channel: 'web', target: '', sent: true }])));
    expect(results.every((r) => r.created)).toBe(true);
    const count = db.sqlite.prepare("select count(*) from confirmation_events where type = 'created'").pluck().get();
    expect(count).toBe(200);
    expect((await store.events(requests[7]!.id)).map((e) => e.type)).toEqual(['created', 'delivered']);
  });

  it('keeps one row for an idempotency key repeated within one burst', async () => {
    const [a, b] = await Promise.all([store.create(make('k1'), []), store.create(make('k1'), [])]);
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.request.id).toBe(a.request.id);
  });

  it('fails only the bad row of a burst, not its neighbours', async () => {
    const good = make();
    const twin = make();
    const clash = { ...make(), id: twin.id };
    const results = await Promise.allSettled([store.create(good, []), store.create(twin, []), store.create(clash, [])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await store.get(good.id)).not.toBeNull();
    expect((await store.get(twin.id))?.toolName).toBe('x');
  });
});
