/**
 * The waiters' registry on a ManualClock: a waiter answers once — woken (with the final row the change carried), at
 * its time limit (all limits behind one clock timer), aborted, cancelled or released — and is forgotten after.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { Waiters } from '../../src/lifecycle/waiters.js';

const row = { id: 'r1', status: 'approved' } as ConfirmationRequest;

describe('Waiters', () => {
  it('wakes every waiter of a request with the final row, and only those', async () => {
    const waiters = new Waiters(new ManualClock());
    const a = waiters.add('r1', 60_000);
    const b = waiters.add('r1', 60_000);
    const other = waiters.add('r2', 60_000);
    expect(waiters.size).toBe(3);
    expect(waiters.wake('r1', row)).toBe(2);
    expect(await a.promise).toBe(row);
    expect(await b.promise).toBe(row);
    expect(waiters.size).toBe(1);
    expect(waiters.wake('r1')).toBe(0);
    other.cancel();
    expect(await other.promise).toBeUndefined();
    expect(waiters.size).toBe(0);
  });

  it('times each waiter out at its own limit, behind one clock timer', async () => {
    const clock = new ManualClock();
    const waiters = new Waiters(clock);
    const settled: string[] = [];
    for (const [id, ms] of [
      ['late', 3000],
      ['early', 1000],
      ['middle', 2000],
    ] as const)
      void waiters.add(id, ms).promise.then(() => settled.push(id));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(999);
    expect(settled).toEqual([]);
    await clock.advance(1);
    expect(settled).toEqual(['early']);
    await clock.advance(2000);
    expect(settled).toEqual(['early', 'middle', 'late']);
    expect(waiters.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('answers a waiter whose signal aborts (or had aborted) without waking the others', async () => {
    const waiters = new Waiters(new ManualClock());
    const leaving = new AbortController();
    const gone = waiters.add('r1', 60_000, leaving.signal);
    const staying = waiters.add('r1', 60_000);
    leaving.abort();
    expect(await gone.promise).toBeUndefined();
    expect(waiters.size).toBe(1);
    const already = waiters.add('r1', 60_000, AbortSignal.abort());
    expect(await already.promise).toBeUndefined();
    waiters.releaseAll();
    expect(await staying.promise).toBeUndefined();
    expect(waiters.size).toBe(0);
  });

  it('keeps the right limits while thousands come and go (finished ones leave the heap)', async () => {
    const clock = new ManualClock();
    const waiters = new Waiters(clock);
    for (let i = 0; i < 5000; i++) waiters.add(`gone-${i}`, 10_000).cancel();
    let timedOut = false;
    void waiters.add('stays', 20_000).promise.then(() => (timedOut = true));
    await clock.advance(19_999);
    expect(timedOut).toBe(false);
    await clock.advance(1);
    expect(timedOut).toBe(true);
  });
});
