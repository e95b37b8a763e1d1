import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
const defaults = {
  timeoutS: 300,
  channels: [{ type: 'web' }],
  options: ['Approve', 'Deny'],
  onTimeout: 'deny' as const,
};
const make = (idempotencyKey?: string) =>
  newConfirmationRequest(
    { toolName: 'x', idempotencyKey },
    defaults,
    [{ type: 'web' }],
    argsSha256('x', {}),
    new Date(),
  );

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
    const results = await Promise.all(
      requests.map((r) => store.create(r, [{ channel: 'web', target: '', sent: true }])),
    );
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

/** Commits in the WAL so far: frames whose header gives the database size after a commit (non-zero only there). */
function walCommits(): number {
  const wal = readFileSync(join(dir, 't.db-wal'));
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let at = 32; at + 24 <= wal.length; at += 24 + pageSize) if (wal.readUInt32BE(at + 4) !== 0) commits++;
  return commits;
}

const approve = (actor: string) => ({
  decision: 'approve' as const,
  actor,
  via: 'api',
  reason: null,
  option: 'Approve',
  approvedArgs: null,
  at: new Date(),
});

describe('store: decisions committed together', () => {
  it('commits the votes and cancels of one burst in one transaction, each settling its own request', async () => {
    const requests = Array.from({ length: 20 }, () => make());
    await Promise.all(requests.map((r) => store.create(r, [])));
    const before = walCommits();
    const [cancelled, ...votes] = await Promise.all([
      store.finish(requests[0]!.id, 'cancelled', { actor: 'api', channel: 'api', detail: {}, at: new Date() }),
      ...requests.slice(1).map((r, i) => store.decide(r.id, approve(`api:p${i}`))),
    ]);
    expect(walCommits()).toBe(before + 1);
    expect(cancelled?.status).toBe('cancelled');
    expect(votes.map((v) => v.kind)).toEqual(requests.slice(1).map(() => 'final'));
    expect((await store.events(requests[5]!.id)).map((e) => e.type)).toEqual(['created', 'approved']);
  });

  it('settles a request once when two votes on it share a transaction, the second finding it final', async () => {
    const request = make();
    await store.create(request, []);
    const [first, second] = await Promise.all([
      store.decide(request.id, approve('api:a')),
      store.decide(request.id, { ...approve('api:b'), decision: 'deny' as const }),
    ]);
    expect(first.kind).toBe('final');
    expect(second).toMatchObject({ kind: 'already_final', request: { status: 'approved', respondedBy: 'api:a' } });
  });

  it('commits a create and a vote of the same turn together, the vote seeing the row queued before it', async () => {
    const request = make();
    const before = walCommits();
    const [created, vote] = await Promise.all([store.create(request, []), store.decide(request.id, approve('api:a'))]);
    expect(created.created).toBe(true);
    expect(vote.kind).toBe('final');
    expect(walCommits()).toBe(before + 1);
  });
});
