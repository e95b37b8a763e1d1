/**
 * Group commit (`src/utils/group-commit.ts`): the writes of one turn go as one batch; with `maxInFlight`, writes that
 * arrive while every slot is taken wait for a batch to end and go together; a failed batch is retried one by one.
 */
import { describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../../src/utils/group-commit.js';

/** A run that records each batch and ends it only when the test says. */
function held() {
  const batches: number[][] = [];
  const ends: (() => void)[] = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve) => ends.push(() => resolve(items.map((n) => n * 10))));
  };
  return { batches, ends, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('sends the writes of one turn as one batch and answers each caller with its own result', async () => {
    const commits: number[][] = [];
    const group = new GroupCommit((items: number[]) => (commits.push(items), items.map((n) => n + 1)));
    expect(await Promise.all([group.add(1), group.add(2), group.add(3)])).toEqual([2, 3, 4]);
    expect(commits).toEqual([[1, 2, 3]]);
  });

  it('unbounded, starts a batch every turn even while others run', async () => {
    const { batches, ends, run } = held();
    const group = new GroupCommit(run);
    const first = group.add(1);
    await turn();
    const second = group.add(2);
    await turn();
    expect(batches).toEqual([[1], [2]]);
    for (const end of ends) end();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
  });

  it('with every slot taken, holds the writes that arrive and sends them together once a batch ends', async () => {
    const { batches, ends, run } = held();
    const group = new GroupCommit(run, 1);
    const first = group.add(1);
    await turn();
    const waiting = [group.add(2), group.add(3)];
    await turn();
    waiting.push(group.add(4));
    await turn();
    // Three turns, but the slot is taken: only the first batch has started.
    expect(batches).toEqual([[1]]);
    ends[0]!();
    expect(await first).toBe(10);
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([[1], [2, 3, 4]]);
    ends[1]!();
    expect(await Promise.all(waiting)).toEqual([20, 30, 40]);
  });

  it('frees its slot when a batch fails, and retries a failed batch one write at a time', async () => {
    const seen: number[][] = [];
    const group = new GroupCommit((items: number[]) => {
      seen.push(items);
      if (items.includes(2)) throw new Error(`bad ${items.join(',')}`);
      return items;
    }, 1);
    const results = await Promise.allSettled([group.add(1), group.add(2), group.add(3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      1,
      'bad 2',
      3,
    ]);
    expect(seen).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(await group.add(4)).toBe(4);
  });
});
