import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import type { Channel } from '../../../src/channel/channel.js';
import { LocalChangeFeed, type ChangeFeed } from '../../../src/lifecycle/change-feed.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { ConflictError, ValidationError } from '../../../src/api/errors.js';
import { Gateway } from '../../../src/gateway/gateway.js';
import { applyMigrations, openDatabase } from '../../../src/stores/sqlite/database.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';

let dir: string;
let clock: ManualClock;
const gateways: { gateway: Gateway; store: SqliteConfirmationStore }[] = [];

/** A gateway on the shared test database file, with its own connection (as a second process would have). */
async function gatewayOnFile(
  options: {
    allowSelfApproval?: boolean;
    channels?: Channel[];
    feed?: ChangeFeed;
    scheduler?: InProcessScheduler;
  } = {},
) {
  const db = openDatabase(join(dir, 'tollgate.db'));
  applyMigrations(db);
  const store = new SqliteConfirmationStore(db);
  const gateway = new Gateway({
    store,
    clock,
    ...options,
    scheduler: options.scheduler ?? new InProcessScheduler({ clock, sweepEveryMs: 0 }),
    channels: [createWebChannel(), ...(options.channels ?? [])],
  });
  await gateway.start();
  gateways.push({ gateway, store });
  return gateway;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-gw-'));
  clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
});

afterEach(async () => {
  for (const { gateway, store } of gateways.splice(0)) {
    await gateway.stop();
    await store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

const web = (userId: string) => ({ channel: 'web', userId });

describe('gateway', () => {
  it('lets exactly one of 50 concurrent decisions win, across two connections to one file', async () => {
    const a = await gatewayOnFile();
    const b = await gatewayOnFile();
    const { request } = await a.request({ toolName: 'rm_rf', toolArgs: { path: '/' } });
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b).decide({ requestId: request.id, decision: i % 3 ? 'approve' : 'deny', actor: web(`u${i}`) }),
      ),
    );
    expect(outcomes.filter((o) => o.ok && o.final)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.code === 'already_decided')).toBe(true);
    const events = await a.events(request.id);
    expect(events.filter((e) => e.type === 'approved' || e.type === 'denied')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'decision_rejected')).toHaveLength(49);
  });

  it('collects distinct approvals up to the quorum, and any deny ends it', async () => {
    const g = await gatewayOnFile();
    const { request } = await g.request({ toolName: 'deploy', requiredApprovals: 2 });
    const first = await g.decide({ requestId: request.id, decision: 'approve', actor: web('alice') });
    expect(first.ok && !first.final && first.request.status === 'pending').toBe(true);
    const again = await g.decide({ requestId: request.id, decision: 'approve', actor: web('alice') });
    expect(!again.ok && again.code).toBe('duplicate_approval');
    const second = await g.decide({ requestId: request.id, decision: 'approve', actor: web('bob') });
    expect(second.ok && second.final && second.request.status).toBe('approved');
    expect((await g.events(request.id)).filter((e) => e.type === 'approved').map((e) => e.actor)).toEqual([
      'web:alice',
      'web:bob',
    ]);

    const other = (await g.request({ toolName: 'deploy', requiredApprovals: 3 })).request;
    await g.decide({ requestId: other.id, decision: 'approve', actor: web('alice') });
    const deny = await g.decide({ requestId: other.id, decision: 'deny', reason: 'no', actor: web('carol') });
    expect(deny.ok && deny.request.status).toBe('denied');
  });

  it('rejects approvers off the allowlist and self-approval, recording decision_rejected', async () => {
    const g = await gatewayOnFile();
    const { request } = await g.request({ toolName: 'pay', userId: 'web:alice', approvers: ['web:alice', 'web:bob'] });
    const stranger = await g.decide({ requestId: request.id, decision: 'approve', actor: web('mallory') });
    expect(!stranger.ok && stranger.code).toBe('not_authorized');
    const self = await g.decide({ requestId: request.id, decision: 'approve', actor: web('alice') });
    expect(!self.ok && self.code).toBe('self_approval');
    const rejected = (await g.events(request.id)).filter((e) => e.type === 'decision_rejected');
    expect(rejected.map((e) => [e.actor, e.detail.code])).toEqual([
      ['web:mallory', 'not_authorized'],
      ['web:alice', 'self_approval'],
    ]);
    expect((await g.get(request.id))?.status).toBe('pending');
    expect((await g.decide({ requestId: request.id, decision: 'approve', actor: web('bob') })).ok).toBe(true);
  });

  it('allows self-approval when configured', async () => {
    const g = await gatewayOnFile({ allowSelfApproval: true });
    const { request } = await g.request({ toolName: 'pay', userId: 'alice' });
    expect((await g.decide({ requestId: request.id, decision: 'approve', actor: web('alice') })).ok).toBe(true);
  });

  it('binds a verdict to the exact arguments and checks the nonce', async () => {
    const g = await gatewayOnFile();
    const { request } = await g.request({ toolName: 'pay', toolArgs: { amount: 1 } });
    const wrongArgs = await g.decide({
      requestId: request.id,
      decision: 'approve',
      argsSha256: '0'.repeat(64),
      actor: web('a'),
    });
    expect(!wrongArgs.ok && wrongArgs.code).toBe('args_mismatch');
    const wrongNonce = await g.decide({ requestId: request.id, nonce: 'nope', decision: 'approve', actor: web('a') });
    expect(!wrongNonce.ok && wrongNonce.code).toBe('bad_nonce');
    const ok = await g.decide({
      requestId: request.id,
      nonce: request.nonce,
      argsSha256: request.argsSha256,
      decision: 'approve',
      approvedArgs: { amount: 0.5 },
      actor: web('a'),
    });
    expect(ok.ok && ok.request.approvedArgs).toEqual({ amount: 0.5 });
    expect(ok.ok && ok.request.toolArgs).toEqual({ amount: 1 });
  });

  it('returns the same row for a repeated idempotency key, whatever its state, and refuses other arguments', async () => {
    const g = await gatewayOnFile();
    const first = await g.request({ toolName: 'pay', toolArgs: { a: 1, b: 2 }, idempotencyKey: 'call-1' });
    expect(first.created).toBe(true);
    await g.decide({ requestId: first.request.id, decision: 'deny', actor: web('x') });
    const again = await g.request({ toolName: 'pay', toolArgs: { b: 2, a: 1 }, idempotencyKey: 'call-1' });
    expect(again.created).toBe(false);
    expect(again.request.id).toBe(first.request.id);
    expect(again.request.status).toBe('denied');
    await expect(g.request({ toolName: 'pay', toolArgs: { a: 2 }, idempotencyKey: 'call-1' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('with underKey, answers from the row the caller read; a row filed under the key since it read still wins', async () => {
    const g = await gatewayOnFile();
    const first = await g.request({ toolName: 'pay', toolArgs: { a: 1 }, idempotencyKey: 'call-2' });
    const read = await g.getByIdempotencyKey('call-2', null);
    const again = await g.request(
      { toolName: 'pay', toolArgs: { a: 1 }, idempotencyKey: 'call-2' },
      { underKey: read },
    );
    expect(again).toMatchObject({ created: false, request: { id: first.request.id } });
    await expect(
      g.request({ toolName: 'pay', toolArgs: { a: 2 }, idempotencyKey: 'call-2' }, { underKey: read }),
    ).rejects.toBeInstanceOf(ConflictError);
    // The caller read "nothing" before another call filed the key: the insert finds that row, no second row is filed.
    const raced = await g.request(
      { toolName: 'pay', toolArgs: { a: 1 }, idempotencyKey: 'call-2' },
      { underKey: null },
    );
    expect(raced).toMatchObject({ created: false, request: { id: first.request.id } });
    await expect(
      g.request({ toolName: 'pay', toolArgs: { a: 2 }, idempotencyKey: 'call-2' }, { underKey: null }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await g.list({ limit: 10 })).items).toHaveLength(1);
  });

  it('refuses channels that are not enabled, naming the field', async () => {
    const g = await gatewayOnFile();
    const error = await g
      .request({ toolName: 'x', channels: [{ type: 'web' }, { type: 'slack', target: 'C1' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors?.[0]?.path).toBe('channels[1].type');
  });

  it('expires on the injected clock, once, with the timeout policy deciding allowed', async () => {
    const g = await gatewayOnFile();
    const deny = (await g.request({ toolName: 'x', timeoutS: 60 })).request;
    const approve = (await g.request({ toolName: 'x', timeoutS: 60, onTimeout: 'approve' })).request;
    await clock.advance(59_000);
    expect((await g.get(deny.id))?.status).toBe('pending');
    await clock.advance(1_000);
    const expired = await g.get(deny.id);
    expect(expired?.status).toBe('expired');
    expect(expired?.allowed).toBe(false);
    expect((await g.get(approve.id))?.allowed).toBe(true);
    expect((await g.events(deny.id)).filter((e) => e.type === 'expired')).toHaveLength(1);
    const late = await g.decide({ requestId: deny.id, decision: 'approve', actor: web('a') });
    expect(!late.ok && late.code).toBe('already_decided');
  });

  it('wakes a waiter on the decision itself, without the clock moving', async () => {
    const g = await gatewayOnFile();
    const { request } = await g.request({ toolName: 'x' });
    const waiting = g.wait(request.id, 55_000);
    await g.decide({ requestId: request.id, decision: 'approve', actor: web('a') });
    expect((await waiting).status).toBe('approved');
    const pending = (await g.request({ toolName: 'y' })).request;
    const timedOut = g.wait(pending.id, 10_000);
    await clock.advance(10_000);
    expect((await timedOut).status).toBe('pending');
  });

  it('keeps a long-poll waiting through a change that settles nothing, until the verdict or its time', async () => {
    const feed = new LocalChangeFeed();
    const g = await gatewayOnFile({ feed });
    const turns = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const { request } = await g.request({ toolName: 'x' });
    let answered = false;
    const waiting = g.wait(request.id, 10_000).finally(() => (answered = true));
    await turns();
    // The request's own `created`, arriving late (as it can over Redis from the replica that filed it), wakes the
    // waiter: it reads the row, finds it pending, and waits on.
    await feed.publish({ requestId: request.id, status: 'pending', kind: 'created' });
    await turns();
    await clock.advance(5_000);
    expect(answered).toBe(false);
    await g.decide({ requestId: request.id, decision: 'approve', actor: web('a') });
    expect((await waiting).status).toBe('approved');

    // Its time still bounds it: counted from the start of the wait, not from the wake-up.
    const other = (await g.request({ toolName: 'y' })).request;
    const timedOut = g.wait(other.id, 10_000);
    await turns();
    await clock.advance(4_000);
    await feed.publish({ requestId: other.id, status: 'pending', kind: 'changed' });
    await turns();
    await clock.advance(6_000);
    expect((await timedOut).status).toBe('pending');
  });

  it('hands waiters the final row of a change made here, without reading it again', async () => {
    const g = await gatewayOnFile();
    const { store } = gateways.at(-1)!;
    const reads: string[] = [];
    const get = store.get.bind(store);
    store.get = async (id: string) => (reads.push(id), get(id));
    const decideCountingReads = async (id: string) => {
      reads.length = 0;
      await g.decide({ requestId: id, decision: 'approve', actor: web('a') });
      return reads.length;
    };
    const unwatched = (await g.request({ toolName: 'y' })).request;
    const readsOfADecision = await decideCountingReads(unwatched.id);

    const { request } = await g.request({ toolName: 'x' });
    const waiting = g.wait(request.id, 55_000);
    await new Promise((resolve) => setImmediate(resolve)); // the waiter's first read
    expect(await decideCountingReads(request.id)).toBe(readsOfADecision);
    const answered = await waiting;
    expect(reads).toHaveLength(readsOfADecision);
    expect(answered.status).toBe('approved');
    expect(answered).toEqual(await get(request.id));
  });

  it("reads a request's cards after a change only when one of them can be rewritten", async () => {
    const pager: Channel = { name: 'pager', send: async () => 'page-1', update: async () => undefined };
    const g = await gatewayOnFile({ channels: [pager] });
    const { store } = gateways.at(-1)!;
    const read: string[] = [];
    const messages = store.messages.bind(store);
    store.messages = async (id: string) => (read.push(id), messages(id));
    const inboxOnly = (await g.request({ toolName: 'x' })).request;
    await g.decide({ requestId: inboxOnly.id, decision: 'approve', actor: web('a') });
    expect(read).toEqual([]);
    // A card on a platform keeps a message to rewrite: its cards are read.
    const elsewhere = (await g.request({ toolName: 'y', channels: [{ type: 'web' }, { type: 'pager', target: 'p1' }] }))
      .request;
    await g.decide({ requestId: elsewhere.id, decision: 'approve', actor: web('a') });
    expect(read).toContain(elsewhere.id);
    expect(read.every((id) => id === elsewhere.id)).toBe(true);
  });

  it('cancels once; a second cancel is a conflict', async () => {
    const g = await gatewayOnFile();
    const { request } = await g.request({ toolName: 'x' });
    expect((await g.cancel(request.id, 'api:runtime', 'no longer needed')).status).toBe('cancelled');
    await expect(g.cancel(request.id)).rejects.toBeInstanceOf(ConflictError);
  });

  it('reconciles at start: overdue rows expire at once, the rest are rescheduled', async () => {
    const first = await gatewayOnFile();
    const soon = (await first.request({ toolName: 'x', timeoutS: 10 })).request;
    const later = (await first.request({ toolName: 'x', timeoutS: 600 })).request;
    await first.stop();
    await clock.advance(60_000); // the process was down for a minute: nobody expired `soon`
    expect((await gateways[0]!.store.get(soon.id))?.status).toBe('pending');
    const second = await gatewayOnFile();
    expect((await second.get(soon.id))?.status).toBe('expired');
    expect((await second.get(later.id))?.status).toBe('pending');
    await second.reconciled(); // re-arming runs in the background; the manual clock must not move before it
    await clock.advance(540_000);
    expect((await second.get(later.id))?.status).toBe('expired');
  });

  it('arms a row it files due beyond the horizon only once a pass finds it within; it still expires at its deadline', async () => {
    // No sweep: only the timers can expire the rows on time.
    const scheduler = new InProcessScheduler({ clock, sweepEveryMs: 0 });
    const g = await gatewayOnFile({ scheduler });
    await g.reconciled();
    const { store } = gateways.at(-1)!; // read around the gateway, whose reads expire an overdue row themselves
    const soon = (await g.request({ toolName: 'x', timeoutS: 120 })).request;
    const far = (await g.request({ toolName: 'x', timeoutS: 3600 })).request;
    const farther = (await g.request({ toolName: 'x', timeoutS: 7200 })).request;
    expect(scheduler.scheduledExpiries).toBe(1); // the row due in two minutes, not those due in one and two hours
    await clock.advance(120_000);
    expect((await store.get(soon.id))?.status).toBe('expired');
    await clock.advance(3600_000 - 120_000 - 1);
    expect((await store.get(far.id))?.status).toBe('pending');
    expect(scheduler.scheduledExpiries).toBe(1); // armed by a pass once it came within the horizon
    await clock.advance(1);
    expect((await store.get(far.id))?.status).toBe('expired');
    expect((await store.events(far.id)).find((e) => e.type === 'expired')?.at).toEqual(far.expiresAt);
    await clock.advance(3600_000);
    expect((await store.events(farther.id)).find((e) => e.type === 'expired')?.at).toEqual(farther.expiresAt);
  });

  it('arms at start only the rows due within the horizon; a row due later still expires at its deadline', async () => {
    const first = await gatewayOnFile();
    await first.request({ toolName: 'x', timeoutS: 120 });
    const far = (await first.request({ toolName: 'x', timeoutS: 3600 })).request;
    await first.stop();
    // No sweep: only the timers can expire `far` on time.
    const scheduler = new InProcessScheduler({ clock, sweepEveryMs: 0 });
    const second = await gatewayOnFile({ scheduler });
    await second.reconciled();
    expect(scheduler.scheduledExpiries).toBe(1); // the row due in two minutes, not the one due in an hour
    await clock.advance(3600_000 - 1);
    expect((await second.get(far.id))?.status).toBe('pending');
    expect(scheduler.scheduledExpiries).toBe(1); // armed by a pass once it came within the horizon
    await clock.advance(1);
    expect((await second.get(far.id))?.status).toBe('expired');
    expect((await second.events(far.id)).find((e) => e.type === 'expired')?.at).toEqual(far.expiresAt);
  });
});
