import { describe, expect, it } from 'vitest';
import { authorizeApprover, isAllowed, isFinal, nextStatus } from '../../../src/requests/state-machine.js';
import { REQUEST_STATUSES } from '../../../src/requests/types.js';

describe('state machine', () => {
  it('moves pending to the state each transition names', () => {
    expect(nextStatus('pending', 'approve')).toBe('approved');
    expect(nextStatus('pending', 'deny')).toBe('denied');
    expect(nextStatus('pending', 'expire')).toBe('expired');
    expect(nextStatus('pending', 'cancel')).toBe('cancelled');
  });

  it('never changes a final state', () => {
    for (const status of REQUEST_STATUSES.filter((s) => s !== 'pending')) {
      expect(isFinal(status)).toBe(true);
      for (const t of ['approve', 'deny', 'expire', 'cancel'] as const) expect(nextStatus(status, t)).toBeNull();
    }
    expect(isFinal('pending')).toBe(false);
  });

  it('derives allowed from the state and the timeout policy', () => {
    expect(isAllowed('pending', 'deny')).toBeNull();
    expect(isAllowed('approved', 'deny')).toBe(true);
    expect(isAllowed('denied', 'approve')).toBe(false);
    expect(isAllowed('cancelled', 'approve')).toBe(false);
    expect(isAllowed('expired', 'deny')).toBe(false);
    expect(isAllowed('expired', 'approve')).toBe(true);
  });

  it('admits listed approvers only, and anyone when the list is empty', () => {
    expect(authorizeApprover({ approvers: ['slack:U1'], userId: null }, 'slack:U1', 'approve', false)).toBeNull();
    expect(authorizeApprover({ approvers: ['slack:U1'], userId: null }, 'slack:U2', 'approve', false)).toBe('not_an_approver');
    expect(authorizeApprover({ approvers: ['slack:U1'], userId: null }, 'feishu:U1', 'deny', false)).toBe('not_an_approver');
    expect(authorizeApprover({ approvers: [], userId: null }, 'web:anyone', 'approve', false)).toBeNull();
    expect(authorizeApprover({ approvers: ['slack:*'], userId: null }, 'slack:U9', 'approve', false)).toBeNull();
    expect(authorizeApprover({ approvers: ['slack:*'], userId: null }, 'web:U9', 'approve', false)).toBe('not_an_approver');
  });

  it('keeps requesters from approving their own request unless allowed, but lets them deny it', () => {
    const request = { approvers: [], userId: 'U7' };
    expect(authorizeApprover(request, 'slack:U7', 'approve', false)).toBe('self_approval');
    expect(authorizeApprover({ approvers: [], userId: 'slack:U7' }, 'slack:U7', 'approve', false)).toBe('self_approval');
    expect(authorizeApprover(request, 'slack:U7', 'deny', false)).toBeNull();
    expect(authorizeApprover(request, 'slack:U7', 'approve', true)).toBeNull();
  });
});
