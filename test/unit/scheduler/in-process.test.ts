import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import type { SchedulerJobs } from '../../../src/scheduler/types.js';

function recordingJobs(calls: string[], failFirst = 0): SchedulerJobs {
  let failures = failFirst;
  return {
    expire: async (id) => void calls.push(`expire:${id}`),
    deliver: async (id, channel, target, attempt) => {
      calls.push(`deliver:${id}:${attempt.attempt}`);
      if (failures-- > 0) throw new Error('platform down');
    },
    updateCard: async (id) => void calls.push(`update:${id}`),
    callback: async (id) => void calls.push(`callback:${id}`),
    sweep: async () => void calls.push('sweep'),
    dueScan: async () => void calls.push('due-scan'),
  };
}

describe('in-process scheduler edge cases', () => {
  it('runs jobs that fell due before start() once handlers exist, and enqueues of them are not lost', async () => {
    const clock = new ManualClock();
    const scheduler = new InProcessScheduler({ clock, sweepEveryMs: 0 });
    const calls: string[] = [];
    await scheduler.enqueueDelivery('r1', 'web', '');
    await scheduler.scheduleExpiry('r2', new Date(clock.now() + 10));
    await clock.advance(20);
    expect(calls).toEqual([]);
    await scheduler.start(recordingJobs(calls));
    await clock.advance(0);
    expect(calls.sort()).toEqual(['deliver:r1:1', 'expire:r2']);
    await scheduler.enqueueDelivery('r1', 'web', '');
    await clock.advance(0);
    expect(calls.filter((c) => c.startsWith('deliver:r1'))).toHaveLength(2);
    await scheduler.stop();
  });

  it('lets a fresh enqueue supersede a pending retry instead of running the job twice', async () => {
    const clock = new ManualClock();
    const scheduler = new InProcessScheduler({ clock, sweepEveryMs: 0, backoffMs: 1000 });
    const calls: string[] = [];
    await scheduler.start(recordingJobs(calls, 1));
    await scheduler.enqueueDelivery('r1', 'slack', 'C1');
    await clock.advance(0); // attempt 1 fails; a retry is armed for +1000 ms
    await scheduler.enqueueDelivery('r1', 'slack', 'C1'); // the retry is already queued under this key: no-op
    await clock.advance(1000);
    expect(calls).toEqual(['deliver:r1:1', 'deliver:r1:2']);
    await scheduler.stop();
  });
});
