/**
 * A verdict wait on a ManualClock: registered before its one read, answered from that read when the row is final or
 * the caller's check refuses it — and in every case where it does not park, no waiter is left behind.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/api/errors.js';
import { waitForVerdict, type WaitDeps } from '../../src/lifecycle/verdict-wait.js';
import { Waiters } from '../../src/lifecycle/waiters.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { ManualClock } from '../../src/utils/clock.js';

const HOUR = 3_600_000;

/** A wait's dependencies over one row the test sets, counting reads. */
function setup(row: Partial<ConfirmationRequest> | null) {
  const clock = new ManualClock();
  const waiters = new Waiters(clock);
  let current =
    row && ({ id: 'r1', status: 'pending', expiresAt: new Date(clock.now() + HOUR), ...row } as ConfirmationRequest);
  let reads = 0;
  const deps: WaitDeps = {
    waiters,
    clock,
    read: async (id) => {
      reads++;
      if (!current) throw new NotFoundError(`no request with id ${id}`);
      return current;
    },
    stopping: () => false,
  };
  return {
    deps,
    waiters,
    reads: () => reads,
    settle: (status: ConfirmationRequest['status']) => (current = { ...current!, status }),
  };
}

describe('waitForVerdict', () => {
  it('parks after one read and answers with the final row the change carries, reading nothing more', async () => {
    const t = setup({});
    const waiting = waitForVerdict(t.deps, 'r1', 30_000);
    await Promise.resolve();
    await Promise.resolve();
    expect(t.waiters.size).toBe(1);
    const final = t.settle('approved');
    expect(t.waiters.wake('r1', final)).toBe(1);
    expect(await waiting).toBe(final);
    expect(t.reads()).toBe(1);
  });

  it("gives the caller's check the first read, and a refusal leaves no waiter behind", async () => {
    const t = setup({});
    const seen: string[] = [];
    const refused = waitForVerdict(t.deps, 'r1', 30_000, undefined, (r) => {
      seen.push(r.status);
      throw new NotFoundError('no request with id r1');
    });
    await expect(refused).rejects.toBeInstanceOf(NotFoundError);
    expect(seen).toEqual(['pending']);
    expect(t.reads()).toBe(1);
    expect(t.waiters.size).toBe(0);
  });

  it('leaves no waiter behind when the read fails', async () => {
    const t = setup(null);
    await expect(waitForVerdict(t.deps, 'r1', 30_000)).rejects.toBeInstanceOf(NotFoundError);
    expect(t.waiters.size).toBe(0);
  });

  it('answers a final row at once, checked, without parking', async () => {
    const t = setup({ status: 'denied' });
    let checked = 0;
    const row = await waitForVerdict(t.deps, 'r1', 30_000, undefined, () => void checked++);
    expect(row.status).toBe('denied');
    expect([checked, t.reads(), t.waiters.size]).toEqual([1, 1, 0]);
  });
});
