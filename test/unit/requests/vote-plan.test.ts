import { describe, expect, it } from 'vitest';
import { needsPriorApprovers, planVote } from '../../../src/requests/vote-plan.js';
import type { Vote } from '../../../src/requests/store.js';
import { newRequest, T0 } from '../../contracts/store-fixtures.js';

const vote = (decision: 'approve' | 'deny', actor = 'web:alice', person = actor): Vote => ({
  decision,
  actor,
  person,
  via: 'web',
  reason: null,
  option: null,
  approvedArgs: null,
  at: T0,
});

describe('vote plan', () => {
  it('reads prior approvers only for an approval towards a quorum', () => {
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 1 }), vote('approve'))).toBe(false);
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 2 }), vote('approve'))).toBe(true);
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 2 }), vote('deny'))).toBe(false);
  });

  it('settles a single-approval request with the first approval, counting it as the only one', () => {
    const plan = planVote(newRequest({ requiredApprovals: 1 }), [], vote('approve'));
    expect(plan).toMatchObject({
      kind: 'final',
      status: 'approved',
      event: { type: 'approved', detail: { approvals: 1, required: 1 } },
    });
  });

  it('records an approval short of the quorum and refuses the same approver twice', () => {
    const request = newRequest({ requiredApprovals: 2 });
    expect(planVote(request, [], vote('approve'))).toMatchObject({ kind: 'recorded', approvals: 1 });
    const alice = [{ actor: 'web:alice', person: 'web:alice' }];
    expect(planVote(request, alice, vote('approve'))).toEqual({ kind: 'duplicate', priorActor: 'web:alice' });
    expect(planVote(request, alice, vote('approve', 'web:bob'))).toMatchObject({ kind: 'final', status: 'approved' });
  });

  it('counts people, not accounts: a second account of a person already counted is a duplicate', () => {
    const request = newRequest({ requiredApprovals: 2 });
    const aliceOnSlack = [{ actor: 'slack:U_ALICE', person: 'alice' }];
    expect(planVote(request, aliceOnSlack, vote('approve', 'web:alice', 'alice'))).toEqual({
      kind: 'duplicate',
      priorActor: 'slack:U_ALICE',
    });
    const final = planVote(request, aliceOnSlack, vote('approve', 'slack:U_BOB', 'bob'));
    expect(final).toMatchObject({
      kind: 'final',
      status: 'approved',
      event: { detail: { person: 'bob', approvals: 2 } },
      fields: { respondedByPerson: 'bob' },
    });
  });

  it("does not count an approval the gateway found no longer an approver's, and names it in the event", () => {
    const request = newRequest({ requiredApprovals: 2 });
    const bob = [{ actor: 'slack:U_BOB', person: 'bob' }];
    const discounted = [{ person: 'bob', reason: 'no longer an approver' }];
    const plan = planVote(request, bob, { ...vote('approve', 'web:alice', 'alice'), discounted });
    expect(plan).toMatchObject({
      kind: 'recorded',
      approvals: 1,
      event: {
        detail: {
          approvals: 1,
          discounted: [{ person: 'bob', actor: 'slack:U_BOB', reason: 'no longer an approver' }],
        },
      },
    });
    // A person named as discounted who never voted changes nothing.
    expect(planVote(request, [], { ...vote('approve', 'web:alice', 'alice'), discounted }).kind).toBe('recorded');
    expect(
      (planVote(request, [], { ...vote('approve', 'web:alice', 'alice'), discounted }) as { event: { detail: object } })
        .event.detail,
    ).not.toHaveProperty('discounted');
  });
});
