import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { DueTimers } from '../../../src/scheduler/due-timers.js';

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const fired: string[][] = [];
  const timers = new DueTimers(clock, (ids) => fired.push(ids));
  return { clock, fired, timers, t0: clock.now() };
}

describe('DueTimers', () => {
  it("holds 10 000 due times behind one clock timer and fires each second's ids as one batch, earliest first", async () => {
    const { clock, fired, timers, t0 } = setup();
    for (let i = 9_999; i >= 0; i--) timers.set(`r${i}`, t0 + 60_000 + (i % 2) * 500);
    expect(clock.pendingTimers).toBe(1);
    expect(timers.size).toBe(10_000);
    await clock.advance(59_999);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toHaveLength(5_000);
    expect(fired[0]!.every((id) => Number(id.slice(1)) % 2 === 0)).toBe(true);
    await clock.advance(500);
    expect(fired.map((b) => b.length)).toEqual([5_000, 5_000]);
    expect(timers.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fires in time order across batches, and a time set again replaces the first', async () => {
    const { clock, fired, timers, t0 } = setup();
    timers.set('late', t0 + 3_000);
    timers.set('early', t0 + 1_000);
    timers.set('moved', t0 + 2_000);
    timers.set('moved', t0 + 4_000);
    await clock.advance(5_000);
    expect(fired).toEqual([['early'], ['late'], ['moved']]);
  });

  it('an earlier time re-arms the one timer; a deleted id never fires', async () => {
    const { clock, fired, timers, t0 } = setup();
    timers.set('a', t0 + 10_000);
    timers.set('b', t0 + 1_000);
    timers.set('c', t0 + 2_000);
    timers.delete('c');
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(1_000);
    expect(fired).toEqual([['b']]);
    await clock.advance(9_000);
    expect(fired).toEqual([['b'], ['a']]);
    timers.delete('never-set');
  });

  it('a time in the past fires on the next turn of the clock', async () => {
    const { clock, fired, timers, t0 } = setup();
    timers.set('overdue', t0 - 5_000);
    expect(fired).toEqual([]);
    await clock.advance(0);
    expect(fired).toEqual([['overdue']]);
  });

  it('keeps its heap bounded when the same ids are rescheduled over and over', async () => {
    const { clock, fired, timers, t0 } = setup();
    for (let round = 0; round < 50; round++)
      for (let i = 0; i < 200; i++) timers.set(`r${i}`, t0 + 1_000 + round * 10 + i);
    expect(timers.size).toBe(200);
    expect((timers as unknown as { heap: { size: number } }).heap.size).toBeLessThanOrEqual(2 * 200 + 1024);
    await clock.advance(10_000);
    expect(fired.flat().sort()).toEqual(Array.from({ length: 200 }, (_, i) => `r${i}`).sort());
  });

  it('clear forgets every time and disarms the timer', async () => {
    const { clock, fired, timers, t0 } = setup();
    timers.set('a', t0 + 1_000);
    timers.clear();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(2_000);
    expect(fired).toEqual([]);
  });
});
