import { describe, expect, it } from 'vitest';
import { isAllowed, isFinal, nextStatus } from '../../../src/requests/state-machine.js';
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
});
