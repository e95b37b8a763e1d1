import { describe, expect, it } from 'vitest';
import { needsPriorApprovers, planVote } from '../../../src/requests/vote-plan.js';
import type { Vote } from '../../../src/requests/store.js';
import { newRequest, T0 } from '../../contracts/store-fixtures.js';

const vote = (decision: 'approve' | 'deny', actor = 'web:alice'): Vote => ({ decision, actor, via: 'web', reason: null, option: null, approvedArgs: null, at: T0 });

describe('vote plan', () => {
  it('reads prior approvers only for an approval towards a quorum', () => {
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 1 }), vote('approve'))).toBe(false);
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 2 }), vote('approve'))).toBe(true);
    expect(needsPriorApprovers(newRequest({ requiredApprovals: 2 }), vote('deny'))).toBe(false);
  });

  it('settles a single-approval request with the first approval, counting it as the only one', () => {
    const plan = planVote(newRequest({ requiredApprovals: 1 }), [], vote('approve'));
    expect(plan).toMatchObject({ kind: 'final', status: 'approved', event: { type: 'approved', detail: { approvals: 1, required: 1 } } });
  });

  it('records an approval short of the quorum and refuses the same approver twice', () => {
    const request = newRequest({ requiredApprovals: 2 });
    expect(planVote(request, [], vote('approve'))).toMatchObject({ kind: 'recorded', approvals: 1 });
    expect(planVote(request, ['web:alice'], vote('approve'))).toEqual({ kind: 'duplicate' });
    expect(planVote(request, ['web:alice'], vote('approve', 'web:bob'))).toMatchObject({ kind: 'final', status: 'approved' });
  });
});
