/**
 * Two replicas on one PostgreSQL database: two stores with two pools (so two sets of server sessions) racing on the
 * same rows. Each race must end as if the calls had run one after another.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock } from '../../src/utils/clock.js';
import { ExpiryScan } from '../../src/lifecycle/expiry-scan.js';
import { applyPostgresMigrations, openPostgres } from '../../src/stores/postgres/database.js';
import { PostgresConfirmationStore } from '../../src/stores/postgres/store.js';
import type { VoteResult } from '../../src/requests/store.js';
import { freshDatabase, truncateAll, type FreshDatabase } from '../integration/postgres/fresh-database.js';
import { at, file, newRequest, vote } from './store-fixtures.js';

let database: FreshDatabase;
let a: PostgresConfirmationStore;
let b: PostgresConfirmationStore;

beforeAll(async () => {
  database = await freshDatabase();
  // Both replicas migrate the empty database at once: the advisory lock makes one wait for the other.
  const opens = [openPostgres(database.url, { poolSize: 8 }), openPostgres(database.url, { poolSize: 8 })];
  await Promise.all(opens.map((open) => applyPostgresMigrations(open)));
  [a, b] = opens.map((open) => new PostgresConfirmationStore(open, { deadlineClock: 'caller' })) as [
    PostgresConfirmationStore,
    PostgresConfirmationStore,
  ];
});

beforeEach(async () => {
  await truncateAll(database.url);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

const replica = (i: number) => (i % 2 === 0 ? a : b);

describe('postgres store: two replicas at once', () => {
  it('counts a quorum of 2 raced by 12 approvers over both replicas as exactly 2 approvals and one verdict', async () => {
    const request = await file(a, { requiredApprovals: 2 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => replica(i).decide(request.id, vote(`web:approver${i}`))),
    );
    const kinds = results.map((r: VoteResult) => r.kind).sort();
    expect(kinds.filter((k) => k === 'final')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'recorded')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'already_final')).toHaveLength(10);
    const events = await b.events(request.id);
    expect(events.filter((e) => e.type === 'approved')).toHaveLength(2);
    expect((await a.get(request.id))?.status).toBe('approved');
  });

  it('gives one verdict when approvals and denials race on both replicas', async () => {
    const request = await file(a);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        replica(i).decide(request.id, vote(`web:u${i}`, i % 3 === 0 ? 'deny' : 'approve')),
      ),
    );
    const finals = results.filter((r) => r.kind === 'final');
    expect(finals).toHaveLength(1);
    const final = finals[0]!;
    if (final.kind !== 'final') throw new Error('unreachable');
    const verdictEvents = (await a.events(request.id)).filter((e) => e.type === 'approved' || e.type === 'denied');
    expect(verdictEvents).toHaveLength(1);
    expect(verdictEvents[0]!.actor).toBe(final.request.respondedBy);
  });

  it('gives one verdict when a deny races the approvals of a quorum of 2, and keeps the approvals recorded before it', async () => {
    const request = await file(a, { requiredApprovals: 2 });
    const votes = Array.from({ length: 9 }, (_, i) =>
      replica(i).decide(request.id, vote(`web:u${i}`, i === 4 ? 'deny' : 'approve')),
    );
    const results = await Promise.all(votes);
    const finals = results.filter((r) => r.kind === 'final');
    expect(finals).toHaveLength(1);
    const final = finals[0]!;
    if (final.kind !== 'final') throw new Error('unreachable');
    expect((await b.get(request.id))?.status).toBe(final.request.status);
    // A deny settles alone (after at most one approval); otherwise two approvals settle and the deny finds it final.
    const types = (await a.events(request.id)).map((e) => e.type).filter((t) => t !== 'created' && t !== 'delivered');
    const recorded = results.filter((r) => r.kind === 'recorded').length;
    if (final.request.status === 'denied') {
      expect(types).toEqual([...Array<string>(recorded).fill('approved'), 'denied']);
      expect(recorded).toBeLessThanOrEqual(1);
    } else {
      expect(types).toEqual(['approved', 'approved']);
      expect(recorded).toBe(1);
    }
  });

  it('creates one row when 20 creates with one idempotency key race over both replicas', async () => {
    const requests = Array.from({ length: 20 }, () => newRequest({ idempotencyKey: 'same-key' }));
    const results = await Promise.all(
      requests.map((r, i) => replica(i).create(r, [{ channel: 'web', target: '', sent: true }])),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = results.find((r) => r.created)!.request.id;
    expect(new Set(results.map((r) => r.request.id))).toEqual(new Set([winner]));
    expect((await a.list({ limit: 100 })).items.map((r) => r.id)).toEqual([winner]);
    expect((await b.events(winner)).map((e) => e.type)).toEqual(['created', 'delivered']);
  });

  it('expires each due row exactly once when both replicas sweep at once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push((await file(i % 2 ? a : b, { timeoutS: 10 + (i % 7) }, at(i % 5))).id);
    const notDue = await file(a, { timeoutS: 3600 });
    const now = at(60);
    const sweep = async (store: PostgresConfirmationStore) => {
      const seen: string[] = [];
      for (;;) {
        const batch = await store.expireDue(now, 7);
        if (batch.length === 0) return seen;
        seen.push(...batch.map((r) => r.id));
      }
    };
    // Two sweepers per replica: SKIP LOCKED lets each claim rows the others do not hold, without waiting.
    const all = (await Promise.all([sweep(a), sweep(b), sweep(a), sweep(b)])).flat();
    expect(all).toHaveLength(60);
    expect(new Set(all)).toEqual(new Set(ids));
    for (const id of ids.slice(0, 10)) expect((await a.events(id)).filter((e) => e.type === 'expired')).toHaveLength(1);
    expect((await a.countByStatus()).expired).toBe(60);
    expect((await b.get(notDue.id))?.status).toBe('pending');
  });

  it('expires a backlog once when each replica drains it in two lanes (expiryLanes)', async () => {
    expect(a.expiryLanes).toBe(2);
    const ids: string[] = [];
    for (let i = 0; i < 1600; i += 400) {
      const batch = Array.from({ length: 400 }, (_, j) => file(replica(i + j), { timeoutS: 10 }, at(0)));
      ids.push(...(await Promise.all(batch)).map((r) => r.id));
    }
    const scan = (store: PostgresConfirmationStore) =>
      new ExpiryScan({
        store,
        clock: new ManualClock(at(60).getTime()),
        logger: pino({ level: 'silent' }),
        fanOut: async () => undefined,
      }).run();
    const counts = await Promise.all([scan(a), scan(b)]);
    expect(counts[0]! + counts[1]!).toBe(1600);
    expect((await a.countByStatus()).expired).toBe(1600);
    const expiredEvents = await a.eventsOf(ids);
    expect(expiredEvents.filter((e) => e.type === 'expired')).toHaveLength(1600);
  });
});
