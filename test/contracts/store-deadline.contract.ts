/**
 * The deadline and people side of the store contract (part of `runStoreContract`): a vote or a cancel at or after
 * `expires_at` expires the row in its own transaction instead (whatever the timers did), and a quorum counts people,
 * not accounts. Fixtures file requests at `T0` with a 300 s timeout, so `at(300)` is the deadline.
 */
import { describe, expect, it } from 'vitest';
import type { ConfirmationStore } from '../../src/requests/store.js';
import { at, file, vote } from './store-fixtures.js';

/** Declares the deadline and people tests; `store()` is the current test's store. */
export function runStoreDeadlineContract(store: () => ConfirmationStore): void {
  describe('the deadline belongs to the row', () => {
    it('expires the row instead of deciding when a vote comes at or after the deadline, with one expired event', async () => {
      const request = await file(store());
      const late = await store().decide(request.id, vote('slack:U1', 'approve', 301));
      expect(late).toMatchObject({
        kind: 'expired',
        request: { status: 'expired', allowed: false, respondedBy: 'system', respondedAt: at(301) },
      });
      expect(await store().get(request.id)).toMatchObject({ status: 'expired', allowed: false });
      const events = await store().events(request.id);
      expect(events.map((e) => e.type)).toEqual(['created', 'expired']);
      expect(events[1]).toMatchObject({ actor: 'system', detail: { on_timeout: 'deny', late_by_ms: 1000 } });
      // Exactly at the deadline is too late as well, and a second late vote finds the row final.
      const onTime = await file(store(), { onTimeout: 'approve' });
      expect(await store().decide(onTime.id, vote('slack:U1', 'deny', 300))).toMatchObject({
        kind: 'expired',
        request: { status: 'expired', allowed: true },
      });
      expect(await store().decide(onTime.id, vote('slack:U2', 'deny', 302))).toMatchObject({ kind: 'already_final' });
      expect((await store().events(onTime.id)).filter((e) => e.type === 'expired')).toHaveLength(1);
    });

    it('refuses an approval towards a quorum after the deadline, and counts none', async () => {
      const request = await file(store(), { requiredApprovals: 2 });
      await store().decide(request.id, vote('slack:U1', 'approve', 100));
      expect(await store().decide(request.id, vote('slack:U2', 'approve', 350))).toMatchObject({
        kind: 'expired',
        request: { status: 'expired' },
      });
      expect((await store().events(request.id)).filter((e) => e.type === 'approved')).toHaveLength(1);
    });

    it('expires instead of cancelling after the deadline', async () => {
      const request = await file(store());
      const done = await store().finish(request.id, 'cancelled', {
        actor: 'api:agent',
        channel: 'api',
        detail: {},
        at: at(400),
      });
      expect(done).toMatchObject({ status: 'expired', respondedBy: 'system' });
      expect((await store().events(request.id)).map((e) => e.type)).toEqual(['created', 'expired']);
    });
  });

  describe('a quorum counts people', () => {
    it('records each approval’s person, refuses a second account of a counted person, and names the first', async () => {
      const request = await file(store(), { requiredApprovals: 2 });
      await store().decide(request.id, vote('slack:U_ALICE', 'approve', 10, { person: 'alice' }));
      const again = await store().decide(request.id, vote('web:alice', 'approve', 11, { person: 'alice' }));
      expect(again).toMatchObject({ kind: 'duplicate', priorActor: 'slack:U_ALICE', request: { status: 'pending' } });
      const last = await store().decide(request.id, vote('slack:U_BOB', 'approve', 12, { person: 'bob' }));
      expect(last).toMatchObject({
        kind: 'final',
        request: { status: 'approved', respondedBy: 'slack:U_BOB', respondedByPerson: 'bob' },
      });
      const approvals = (await store().events(request.id)).filter((e) => e.type === 'approved');
      expect(approvals.map((e) => [e.actor, e.detail.person])).toEqual([
        ['slack:U_ALICE', 'alice'],
        ['slack:U_BOB', 'bob'],
      ]);
    });

    it('records the person of a settling vote on the row, and the account as the person when none is given', async () => {
      const denied = await file(store());
      expect(await store().decide(denied.id, vote('slack:U_BOB', 'deny', 10, { person: 'bob' }))).toMatchObject({
        kind: 'final',
        request: { respondedByPerson: 'bob' },
      });
      const approved = await file(store());
      expect(await store().decide(approved.id, vote('web:carol', 'approve', 10))).toMatchObject({
        kind: 'final',
        request: { respondedByPerson: 'web:carol' },
      });
    });
  });
}
