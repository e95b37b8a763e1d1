/**
 * The one store contract suite: every {@link ConfirmationStore} (SQLite now, PostgreSQL next) must pass it. It speaks
 * only the store's interface — no SQL, no driver — so a dialect's test file is a few lines:
 *
 * ```ts
 * runStoreContract({ name: 'sqlite', newStore: async () => ({ store, cleanup }) });
 * ```
 *
 * Rows are made with the gateway's own `newConfirmationRequest`, on fixed times (`store-fixtures.ts`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/api/errors.js';
import { askedDigest } from '../../src/requests/coverage.js';
import type { ConfirmationStore, VoteResult } from '../../src/requests/store.js';
import { at, file, newRequest, T0, vote, type StoreContractSetup } from './store-fixtures.js';
import { runStoreDeadlineContract } from './store-deadline.contract.js';
import { runStoreQueryContract } from './store-queries.contract.js';
import { runStoreSameCallContract } from './store-same-call.contract.js';
import { runStoreSummaryContract } from './store-summary.contract.js';

export type { StoreContractSetup, StoreHarness } from './store-fixtures.js';

/** Runs the store contract against the stores `setup.newStore` builds. */
export function runStoreContract(setup: StoreContractSetup): void {
  describe(`store contract: ${setup.name ?? 'store'}`, () => {
    let store: ConfirmationStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await setup.newStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    describe('create', () => {
      it('stores the row as given, with its created event and one pending card per target', async () => {
        const request = newRequest({
          userId: 'u-1',
          agentId: 'billing',
          metadata: { ticket: 7 },
          approvers: ['slack:U1'],
          callbackUrl: 'https://example.test/cb',
        });
        const result = await store.create(request, [
          { channel: 'slack', target: 'C0FIN' },
          { channel: 'feishu', target: 'oc_1' },
        ]);
        expect(result).toEqual({ request, created: true });
        expect(await store.get(request.id)).toEqual(request);
        const events = await store.events(request.id);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          requestId: request.id,
          type: 'created',
          actor: 'u-1',
          channel: null,
          detail: {},
          at: T0,
        });
        const messages = await store.messages(request.id);
        expect(messages.map((m) => [m.channel, m.target, m.status, m.messageRef, m.attempts, m.lastError])).toEqual([
          ['slack', 'C0FIN', 'pending', null, 0, null],
          ['feishu', 'oc_1', 'pending', null, 0, null],
        ]);
      });

      it('marks a sent card delivered at once, with a delivered event', async () => {
        const request = await file(store, {}, T0, [{ channel: 'web', target: '', sent: true }]);
        expect((await store.messages(request.id)).map((m) => [m.channel, m.target, m.status])).toEqual([
          ['web', '', 'sent'],
        ]);
        expect((await store.events(request.id)).map((e) => [e.type, e.channel])).toEqual([
          ['created', null],
          ['delivered', 'web'],
        ]);
        expect(await store.unsentMessages(10)).toEqual([]);
      });

      it('writes created, the extra events and one delivered per card sent inline, in that order, with every card row', async () => {
        const extras = {
          detail: { rule: 'ops' },
          events: [{ type: 'reminded' as const, actor: 'system', channel: null, detail: { step: 0 }, at: T0 }],
        };
        const cards = [
          { channel: 'web', target: '', sent: true },
          { channel: 'slack', target: 'C1' },
          { channel: 'inbox2', target: 'x', sent: true },
        ];
        const result = await store.create(newRequest({}, T0), cards, extras);
        const events = await store.events(result.request.id);
        // The created event carries the digest of what was asked, and the row read back still matches it (docs/audit.md).
        expect(events.map((e) => [e.type, e.channel, e.detail])).toEqual([
          ['created', null, { rule: 'ops', asked: askedDigest((await store.get(result.request.id))!) }],
          ['reminded', null, { step: 0 }],
          ['delivered', 'web', { target: '', message_ref: null, attempt: 0 }],
          ['delivered', 'inbox2', { target: 'x', message_ref: null, attempt: 0 }],
        ]);
        expect((await store.messages(result.request.id)).map((m) => [m.channel, m.status])).toEqual([
          ['web', 'sent'],
          ['slack', 'pending'],
          ['inbox2', 'sent'],
        ]);
      });

      it('answers a reused idempotency key with the existing row and writes nothing', async () => {
        const first = await file(store, { idempotencyKey: 'key-1' }, T0, [{ channel: 'slack', target: 'C1' }]);
        const again = newRequest({ idempotencyKey: 'key-1', toolArgs: { other: true } }, at(5));
        expect(await store.create(again, [{ channel: 'slack', target: 'C2' }])).toEqual({
          request: first,
          created: false,
        });
        expect(await store.get(again.id)).toBeNull();
        expect(await store.events(first.id)).toHaveLength(1);
        expect((await store.messages(first.id)).map((m) => m.target)).toEqual(['C1']);
        expect(await store.getByIdempotencyKey('key-1', null)).toEqual(first);
      });

      it("keeps keys per filer: another token's key neither answers a create nor reads back", async () => {
        const mine = await file(store, { idempotencyKey: 'hook:-:call_1', filedBy: 'agent-one' }, T0);
        const theirs = newRequest({ idempotencyKey: 'hook:-:call_1', filedBy: 'agent-two' }, at(5));
        expect(await store.create(theirs, [])).toEqual({ request: theirs, created: true });
        expect((await store.getByIdempotencyKey('hook:-:call_1', 'agent-one'))?.id).toBe(mine.id);
        expect((await store.getByIdempotencyKey('hook:-:call_1', 'agent-two'))?.id).toBe(theirs.id);
        expect(await store.getByIdempotencyKey('hook:-:call_1', null)).toBeNull();
        expect(await store.getByIdempotencyKey('hook:-:call_1', 'agent-three')).toBeNull();
        const again = newRequest({ idempotencyKey: 'hook:-:call_1', filedBy: 'agent-two' }, at(6));
        expect((await store.create(again, [])).request.id).toBe(theirs.id);
      });

      it('creates one row when creates with the same key race', async () => {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.create(newRequest({ idempotencyKey: 'race' }, at(i)), [])),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(new Set(results.map((r) => r.request.id)).size).toBe(1);
        expect((await store.countByStatus()).pending).toBe(1);
      });

      it('refuses a second row with the same id as a ConflictError and writes nothing', async () => {
        const request = await file(store, {}, T0, [{ channel: 'slack', target: 'C1' }]);
        const twin = { ...newRequest({}, at(5)), id: request.id };
        await expect(store.create(twin, [{ channel: 'slack', target: 'C2' }])).rejects.toBeInstanceOf(ConflictError);
        expect(await store.get(request.id)).toEqual(request);
        expect(await store.events(request.id)).toHaveLength(1);
        expect(await store.messages(request.id)).toHaveLength(1);
      });

      it('lands every create filed in one turn with its own events and cards, and fails only the bad one', async () => {
        const taken = await file(store, {}, T0, [{ channel: 'slack', target: 'C1' }]);
        const good = [
          newRequest({ toolName: 'a' }, at(1)),
          newRequest({ toolName: 'b', idempotencyKey: 'k-b' }, at(2)),
          newRequest({ toolName: 'c' }, at(3)),
        ];
        const twin = { ...newRequest({}, at(4)), id: taken.id };
        const keyed = await file(store, { idempotencyKey: 'k-old' }, T0);
        const results = await Promise.allSettled([
          store.create(good[0]!, [{ channel: 'web', target: '', sent: true }]),
          store.create(twin, [{ channel: 'slack', target: 'C9' }]),
          store.create(good[1]!, [{ channel: 'slack', target: 'C2' }]),
          store.create(newRequest({ idempotencyKey: 'k-old' }, at(5)), [{ channel: 'slack', target: 'C3' }]),
          store.create(good[2]!, []),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
        expect((results[3] as PromiseFulfilledResult<unknown>).value).toEqual({ request: keyed, created: false });
        expect(await store.messages(keyed.id)).toEqual([]);
        for (const request of good) expect(await store.get(request.id)).toEqual(request);
        expect((await store.events(good[0]!.id)).map((e) => e.type)).toEqual(['created', 'delivered']);
        expect((await store.messages(good[1]!.id)).map((m) => [m.channel, m.target, m.status])).toEqual([
          ['slack', 'C2', 'pending'],
        ]);
        expect(await store.messages(good[2]!.id)).toEqual([]);
        expect((await store.messages(taken.id)).map((m) => m.target)).toEqual(['C1']);
        expect(await store.events(taken.id)).toHaveLength(1);
      });

      it('keeps requests without a key apart', async () => {
        const a = await file(store);
        const b = await file(store);
        expect(a.id).not.toBe(b.id);
        expect((await store.countByStatus()).pending).toBe(2);
      });
    });

    describe('get', () => {
      it('answers null for an unknown id or key', async () => {
        expect(await store.get(newRequest().id)).toBeNull();
        expect(await store.getByIdempotencyKey('nope', null)).toBeNull();
      });
    });

    describe('decide', () => {
      it('flips a pending row on a deny, with its event and the vote on the row', async () => {
        const request = await file(store);
        const result = await store.decide(
          request.id,
          vote('slack:U1', 'deny', 10, { reason: 'too much', option: 'Deny', token: 'bridge' }),
        );
        expect(result.kind).toBe('final');
        const row = await store.get(request.id);
        expect(row).toMatchObject({
          status: 'denied',
          allowed: false,
          respondedBy: 'slack:U1',
          respondedVia: 'slack',
          reason: 'too much',
          decisionOption: 'Deny',
          respondedAt: at(10),
          updatedAt: at(10),
        });
        expect(result).toEqual({ kind: 'final', request: row });
        const denied = (await store.events(request.id)).at(-1);
        expect(denied).toMatchObject({
          type: 'denied',
          actor: 'slack:U1',
          channel: 'slack',
          at: at(10),
          detail: { reason: 'too much', option: 'Deny', token: 'bridge' },
        });
      });

      it('approves with edited arguments when one approval is required', async () => {
        const request = await file(store);
        const result = await store.decide(
          request.id,
          vote('web:alice', 'approve', 20, { approvedArgs: { invoice: 'INV-7', amount: 1000 } }),
        );
        expect(result).toMatchObject({
          kind: 'final',
          request: {
            status: 'approved',
            allowed: true,
            approvedArgs: { invoice: 'INV-7', amount: 1000 },
            respondedBy: 'web:alice',
          },
        });
        expect((await store.events(request.id)).at(-1)).toMatchObject({
          type: 'approved',
          detail: { approvals: 1, required: 1, approved_args: { invoice: 'INV-7', amount: 1000 } },
        });
      });

      it('counts a quorum: short approvals are recorded, the same actor twice is a duplicate, the completing one is final', async () => {
        const request = await file(store, { requiredApprovals: 3 });
        const first = await store.decide(request.id, vote('slack:U1', 'approve', 10));
        expect(first).toMatchObject({
          kind: 'recorded',
          approvals: 1,
          request: { status: 'pending', updatedAt: at(10) },
        });
        expect(await store.get(request.id)).toMatchObject({
          status: 'pending',
          allowed: null,
          respondedBy: null,
          updatedAt: at(10),
        });
        expect(await store.decide(request.id, vote('slack:U1', 'approve', 11))).toMatchObject({
          kind: 'duplicate',
          request: { status: 'pending' },
        });
        expect(await store.decide(request.id, vote('web:bob', 'approve', 12))).toMatchObject({
          kind: 'recorded',
          approvals: 2,
        });
        const last = await store.decide(request.id, vote('feishu:ou_3', 'approve', 13));
        expect(last).toMatchObject({
          kind: 'final',
          request: { status: 'approved', allowed: true, respondedBy: 'feishu:ou_3', respondedAt: at(13) },
        });
        const approvals = (await store.events(request.id)).filter((e) => e.type === 'approved');
        expect(approvals.map((e) => [e.actor, e.detail.approvals, e.detail.required])).toEqual([
          ['slack:U1', 1, 3],
          ['web:bob', 2, 3],
          ['feishu:ou_3', 3, 3],
        ]);
      });

      it('lets a deny end a quorum that is still collecting approvals', async () => {
        const request = await file(store, { requiredApprovals: 2 });
        await store.decide(request.id, vote('slack:U1', 'approve', 10));
        expect(await store.decide(request.id, vote('slack:U2', 'deny', 11))).toMatchObject({
          kind: 'final',
          request: { status: 'denied', respondedBy: 'slack:U2' },
        });
      });

      it('changes nothing after the verdict, and answers not_found for an unknown id', async () => {
        const request = await file(store);
        await store.decide(request.id, vote('slack:U1', 'deny', 10));
        const events = await store.events(request.id);
        const after = await store.decide(request.id, vote('slack:U2', 'approve', 11));
        expect(after).toMatchObject({ kind: 'already_final', request: { status: 'denied', respondedBy: 'slack:U1' } });
        expect(await store.events(request.id)).toEqual(events);
        expect(await store.decide(newRequest().id, vote('slack:U1'))).toEqual({ kind: 'not_found' });
      });

      it('gives exactly one verdict when decisions race', async () => {
        const request = await file(store);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.decide(request.id, vote(`slack:U${i}`, i % 2 ? 'deny' : 'approve', 10 + i)),
          ),
        );
        expect(results.filter((r) => r.kind === 'final')).toHaveLength(1);
        expect(results.filter((r) => r.kind === 'already_final')).toHaveLength(9);
        const verdicts = (await store.events(request.id)).filter((e) => e.type === 'approved' || e.type === 'denied');
        expect(verdicts).toHaveLength(1);
        const winner = results.find((r): r is Extract<VoteResult, { kind: 'final' }> => r.kind === 'final')!;
        expect(await store.get(request.id)).toEqual(winner.request);
      });

      it('counts a racing quorum exactly', async () => {
        const request = await file(store, { requiredApprovals: 3 });
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => store.decide(request.id, vote(`web:user${i}`, 'approve', 10 + i))),
        );
        expect(results.map((r) => r.kind).sort()).toEqual([
          'already_final',
          'already_final',
          'already_final',
          'final',
          'recorded',
          'recorded',
        ]);
        expect((await store.events(request.id)).filter((e) => e.type === 'approved')).toHaveLength(3);
      });
    });

    describe('finish', () => {
      it('expires a pending row as its timeout policy says, and cancels one', async () => {
        const denyOnTimeout = await file(store);
        const approveOnTimeout = await file(store, { onTimeout: 'approve' });
        const cancelled = await file(store);
        const expired = await store.finish(denyOnTimeout.id, 'expired', {
          actor: 'system',
          channel: null,
          detail: {},
          at: at(300),
        });
        expect(expired).toMatchObject({
          status: 'expired',
          allowed: false,
          respondedBy: 'system',
          respondedAt: at(300),
        });
        expect(await store.get(denyOnTimeout.id)).toEqual(expired);
        expect(
          await store.finish(approveOnTimeout.id, 'expired', {
            actor: 'system',
            channel: null,
            detail: {},
            at: at(300),
          }),
        ).toMatchObject({ status: 'expired', allowed: true });
        const done = await store.finish(cancelled.id, 'cancelled', {
          actor: 'api:agent',
          channel: 'api',
          detail: { reason: 'user gave up' },
          at: at(30),
        });
        expect(done).toMatchObject({
          status: 'cancelled',
          allowed: false,
          respondedBy: 'api:agent',
          respondedVia: 'api',
          reason: 'user gave up',
        });
        expect((await store.events(cancelled.id)).at(-1)).toMatchObject({
          type: 'cancelled',
          actor: 'api:agent',
          channel: 'api',
          detail: { reason: 'user gave up' },
          at: at(30),
        });
      });

      it('answers null and writes nothing when the row is not pending or does not exist', async () => {
        const request = await file(store);
        await store.decide(request.id, vote('slack:U1', 'approve'));
        const events = await store.events(request.id);
        expect(
          await store.finish(request.id, 'cancelled', { actor: 'x', channel: null, detail: {}, at: at(20) }),
        ).toBeNull();
        expect(
          await store.finish(request.id, 'expired', { actor: 'system', channel: null, detail: {}, at: at(400) }),
        ).toBeNull();
        expect(await store.events(request.id)).toEqual(events);
        expect(await store.get(request.id)).toMatchObject({ status: 'approved' });
        expect(
          await store.finish(newRequest().id, 'expired', { actor: 'system', channel: null, detail: {}, at: at(1) }),
        ).toBeNull();
      });
    });

    describe('escalate', () => {
      const escalated = (step: number) => ({
        type: 'escalated' as const,
        actor: 'system',
        channel: null,
        detail: { step },
        at: at(60),
      });

      it('widens a pending row’s approvers and channels with its escalated event, once per step', async () => {
        const request = await file(store, { approvers: ['web:alice'] });
        const routing = { approvers: ['web:alice', 'web:ceo'], channels: [{ type: 'web' }] };
        const row = await store.escalate(request.id, 0, routing, escalated(0));
        expect(row).toMatchObject({
          id: request.id,
          status: 'pending',
          approvers: ['web:alice', 'web:ceo'],
          channels: [{ type: 'web' }],
        });
        expect(await store.get(request.id)).toEqual(row);
        expect(await store.escalate(request.id, 0, routing, escalated(0))).toBeNull();
        // Its digest covers the widened approvers, so `audit verify` holds the row to the escalation from here on.
        expect((await store.events(request.id)).filter((e) => e.type === 'escalated')).toEqual([
          expect.objectContaining({ actor: 'system', detail: { step: 0, asked: askedDigest(row!) }, at: at(60) }),
        ]);
        expect(askedDigest(row!)).not.toBe(askedDigest(request));
      });

      it('answers null and writes nothing when the row is not pending', async () => {
        const request = await file(store, { approvers: ['web:alice'] });
        await store.decide(request.id, vote('web:alice', 'deny'));
        const events = await store.events(request.id);
        expect(
          await store.escalate(request.id, 0, { approvers: ['web:alice', 'web:ceo'], channels: [] }, escalated(0)),
        ).toBeNull();
        expect(await store.events(request.id)).toEqual(events);
        expect((await store.get(request.id))?.approvers).toEqual(['web:alice']);
      });
    });

    describe('expireDue', () => {
      it('expires due pending rows only, oldest expiry first, up to the limit, each with its event', async () => {
        const late = await file(store, { timeoutS: 60 });
        const early = await file(store, { timeoutS: 10, onTimeout: 'approve' });
        const exactlyNow = await file(store, { timeoutS: 100 });
        const notDue = await file(store, { timeoutS: 101 });
        const decided = await file(store, { timeoutS: 5 });
        await store.decide(decided.id, vote('slack:U1', 'deny', 1));
        const now = at(100);
        const first = await store.expireDue(now, 2);
        expect(first.map((r) => r.id)).toEqual([early.id, late.id]);
        expect(first[0]).toMatchObject({ status: 'expired', allowed: true, respondedBy: 'system', respondedAt: now });
        expect(first[1]).toMatchObject({ status: 'expired', allowed: false });
        expect((await store.expireDue(now, 10)).map((r) => r.id)).toEqual([exactlyNow.id]);
        expect(await store.expireDue(now, 10)).toEqual([]);
        expect(await store.get(notDue.id)).toMatchObject({ status: 'pending' });
        expect(await store.get(decided.id)).toMatchObject({ status: 'denied' });
        expect((await store.events(early.id)).at(-1)).toMatchObject({
          type: 'expired',
          actor: 'system',
          detail: { on_timeout: 'approve' },
          at: now,
        });
        expect((await store.countByStatus()).expired).toBe(3);
      });
    });

    describe('events', () => {
      it('appends events in order and reads them back as written', async () => {
        const request = await file(store);
        await store.appendEvent(request.id, {
          type: 'delivered',
          actor: null,
          channel: 'slack',
          detail: { target: 'C1', message_ref: 'C1:1.2' },
          at: at(1),
        });
        await store.appendEvent(request.id, {
          type: 'delivery_failed',
          actor: null,
          channel: 'feishu',
          detail: { error: 'boom', attempt: 2 },
          at: at(2),
        });
        await store.appendEvent(request.id, {
          type: 'reminded',
          actor: 'system',
          channel: null,
          detail: {},
          at: at(3),
        });
        const events = await store.events(request.id);
        expect(events.map((e) => e.type)).toEqual(['created', 'delivered', 'delivery_failed', 'reminded']);
        expect(events[2]).toMatchObject({
          requestId: request.id,
          actor: null,
          channel: 'feishu',
          detail: { error: 'boom', attempt: 2 },
          at: at(2),
        });
        expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
        expect(new Set(events.map((e) => e.id)).size).toBe(4);
        expect(await store.events(newRequest().id)).toEqual([]);
      });

      it('refuses an event or a card for a request that does not exist with NotFoundError', async () => {
        const ghost = newRequest().id;
        await expect(
          store.appendEvent(ghost, { type: 'reminded', actor: 'system', channel: null, detail: {}, at: at(1) }),
        ).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.ensureMessage(ghost, 'slack', 'C1', at(1))).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.events(ghost)).toEqual([]);
        expect(await store.messages(ghost)).toEqual([]);
      });
    });

    describe('lifecycle', () => {
      it('answers ping and closes', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
        await expect(store.close()).resolves.toBeUndefined();
      });
    });

    runStoreQueryContract(() => store);
    runStoreDeadlineContract(() => store);
    runStoreSameCallContract(() => store);
    runStoreSummaryContract(() => store);
  });
}
