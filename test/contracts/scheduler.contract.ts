/**
 * The one scheduler contract suite: every {@link Scheduler} implementation (in-process timers, BullMQ in Redis) must
 * pass it. Implementations on a manual clock pass `advance`; the others run in real time with delays of tens of ms.
 * Timing checks compare the times the handlers saw, never the wall time of the test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  JobFailedPermanentlyError,
  JobNotNeededError,
  RetryLaterError,
  type JobAttempt,
  type Scheduler,
  type SchedulerJobs,
  type SchedulerOptions,
} from '../../src/scheduler/types.js';

/** One scheduler under test. */
export interface SchedulerHarness {
  scheduler: Scheduler;
  /** The time the scheduler reads, in ms since the epoch. */
  now(): number;
  /** Moves a manual clock forward; absent when the scheduler runs on real time. */
  advance?(ms: number): Promise<void>;
  /** Stops the scheduler (if still running) and removes whatever it left behind. */
  cleanup(): Promise<void>;
}

/** How the suite builds schedulers. */
export interface SchedulerContractSetup {
  create(options: SchedulerOptions): Promise<SchedulerHarness>;
}

/** One handler call the suite saw. */
export interface RecordedCall {
  job: 'expire' | 'deliver' | 'update' | 'callback' | 'sweep' | 'due-scan';
  requestId?: string;
  channel?: string;
  target?: string;
  attempt?: JobAttempt;
  at: number;
}

/** Job handlers that record every call and behave as the test says. */
export class RecordingJobs implements SchedulerJobs {
  readonly calls: RecordedCall[] = [];
  behave: (call: RecordedCall) => Promise<void> | void = () => undefined;

  constructor(private readonly now: () => number) {}

  of(job: RecordedCall['job'], requestId?: string): RecordedCall[] {
    return this.calls.filter((c) => c.job === job && (requestId === undefined || c.requestId === requestId));
  }

  private async record(call: Omit<RecordedCall, 'at'>): Promise<void> {
    const recorded = { ...call, at: this.now() };
    this.calls.push(recorded);
    await this.behave(recorded);
  }

  expire(requestId: string) {
    return this.record({ job: 'expire', requestId });
  }
  deliver(requestId: string, channel: string, target: string, attempt: JobAttempt) {
    return this.record({ job: 'deliver', requestId, channel, target, attempt });
  }
  updateCard(requestId: string, channel: string, target: string, attempt: JobAttempt) {
    return this.record({ job: 'update', requestId, channel, target, attempt });
  }
  callback(requestId: string, attempt: JobAttempt) {
    return this.record({ job: 'callback', requestId, attempt });
  }
  sweep() {
    return this.record({ job: 'sweep' });
  }
  dueScan() {
    return this.record({ job: 'due-scan' });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the scheduler contract against the implementation that `setup` builds. */
export function runSchedulerContract(name: string, setup: SchedulerContractSetup): void {
  describe(`scheduler contract: ${name}`, { timeout: 20_000 }, () => {
    let h: SchedulerHarness | undefined;
    let jobs: RecordingJobs;

    afterEach(async () => {
      await h?.cleanup();
      h = undefined;
    });

    async function create(options: SchedulerOptions = {}) {
      h = await setup.create({ attempts: 3, backoffMs: 20, sweepEveryMs: 0, ...options });
      jobs = new RecordingJobs(() => h!.now());
      return h;
    }
    async function started(options: SchedulerOptions = {}) {
      const harness = await create(options);
      await harness.scheduler.start(jobs);
      return harness;
    }
    /** Lets `ms` of the scheduler's time pass. */
    async function elapse(ms: number) {
      if (h!.advance) await h!.advance(ms);
      else await sleep(ms);
    }
    /** Lets time pass in small steps until `done()` holds. */
    async function until(done: () => boolean, what: string, limitMs = 5000) {
      for (let waited = 0; !done(); waited += 5) {
        if (waited > limitMs) throw new Error(`gave up waiting for ${what}`);
        await elapse(5);
      }
    }

    it('fires an expiry at its time, not before', async () => {
      const { scheduler, now } = await started();
      const at = now() + 60;
      await scheduler.scheduleExpiry('r1', new Date(at));
      await until(() => jobs.of('expire').length > 0, 'the expiry');
      expect(jobs.of('expire').map((c) => c.requestId)).toEqual(['r1']);
      expect(jobs.of('expire')[0]!.at).toBeGreaterThanOrEqual(at);
    });

    it('fires an expiry in the past at once', async () => {
      const { scheduler, now } = await started();
      await scheduler.scheduleExpiry('late', new Date(now() - 60_000));
      await until(() => jobs.of('expire', 'late').length > 0, 'the overdue expiry', 1000);
      expect(jobs.of('expire', 'late')).toHaveLength(1);
    });

    // Times in these tests leave a second of slack, so a slow first call to Redis on a busy machine still lands
    // before the first timer is due.
    it('rescheduling to a later time replaces the earlier one', async () => {
      const { scheduler, now } = await started();
      const t0 = now();
      await scheduler.scheduleExpiry('r1', new Date(t0 + 1000));
      await scheduler.scheduleExpiry('r1', new Date(t0 + 1300));
      await until(() => jobs.of('expire').length > 0, 'the expiry');
      expect(jobs.of('expire')[0]!.at).toBeGreaterThanOrEqual(t0 + 1300);
      await elapse(100);
      expect(jobs.of('expire')).toHaveLength(1);
    });

    it('rescheduling to an earlier time replaces the later one', async () => {
      const { scheduler, now } = await started();
      const t0 = now();
      await scheduler.scheduleExpiry('r1', new Date(t0 + 2500));
      await scheduler.scheduleExpiry('r1', new Date(t0 + 1000));
      await until(() => jobs.of('expire').length > 0, 'the expiry');
      const fired = jobs.of('expire')[0]!.at;
      expect(fired).toBeGreaterThanOrEqual(t0 + 1000);
      expect(fired).toBeLessThan(t0 + 2500);
      await until(() => now() > t0 + 2600, 'the old time to pass');
      expect(jobs.of('expire')).toHaveLength(1);
    });

    it('scheduling the same expiry again fires it once', async () => {
      const { scheduler, now } = await started();
      const at = new Date(now() + 300);
      await Promise.all([
        scheduler.scheduleExpiry('r1', at),
        scheduler.scheduleExpiry('r1', at),
        scheduler.scheduleExpiry('r1', at),
      ]);
      await until(() => jobs.of('expire').length > 0, 'the expiry');
      await elapse(100);
      expect(jobs.of('expire')).toHaveLength(1);
    });

    it('cancelExpiry prevents firing, and is harmless without a timer', async () => {
      const { scheduler, now } = await started();
      const t0 = now();
      await scheduler.scheduleExpiry('cancelled', new Date(t0 + 1000));
      await scheduler.cancelExpiry('cancelled');
      await scheduler.cancelExpiry('never-scheduled');
      await scheduler.scheduleExpiry('sentinel', new Date(t0 + 1050));
      await until(() => jobs.of('expire', 'sentinel').length > 0, 'the sentinel expiry');
      await elapse(40);
      expect(jobs.of('expire').map((c) => c.requestId)).toEqual(['sentinel']);
    });

    it('retries an expiry whose handler throws', async () => {
      const { scheduler, now } = await started();
      jobs.behave = (call) => {
        if (call.job === 'expire' && jobs.of('expire').length === 1) throw new Error('database busy');
      };
      await scheduler.scheduleExpiry('r1', new Date(now() + 10));
      await until(() => jobs.of('expire').length >= 2, 'the retried expiry');
      expect(jobs.of('expire').map((c) => c.requestId)).toEqual(['r1', 'r1']);
    });

    it('runs deliveries, card updates and callbacks with their arguments', async () => {
      const { scheduler } = await started();
      await scheduler.enqueueDelivery('r1', 'slack', 'C0123');
      await scheduler.enqueueCardUpdate('r1', 'feishu', 'oc_x:y z');
      await scheduler.enqueueCallback('r1');
      await until(() => jobs.calls.length >= 3, 'three jobs');
      const first = { attempt: 1, isLastAttempt: false };
      expect(jobs.of('deliver')).toMatchObject([
        { requestId: 'r1', channel: 'slack', target: 'C0123', attempt: first },
      ]);
      expect(jobs.of('update')).toMatchObject([
        { requestId: 'r1', channel: 'feishu', target: 'oc_x:y z', attempt: first },
      ]);
      expect(jobs.of('callback')).toMatchObject([{ requestId: 'r1', attempt: first }]);
    });

    it('retries a failing job with exponential backoff up to its attempts, telling each attempt', async () => {
      const { scheduler } = await started({ attempts: 3, backoffMs: 20 });
      jobs.behave = () => {
        throw new Error('platform down');
      };
      await scheduler.enqueueDelivery('r1', 'slack', 'C1');
      await until(() => jobs.calls.length >= 3, 'three attempts');
      await elapse(200);
      const calls = jobs.of('deliver');
      expect(calls.map((c) => c.attempt)).toEqual([
        { attempt: 1, isLastAttempt: false },
        { attempt: 2, isLastAttempt: false },
        { attempt: 3, isLastAttempt: true },
      ]);
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(20);
      expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(40);
    });

    it('waits at least as long as a RetryLaterError asks', async () => {
      const { scheduler } = await started({ attempts: 3, backoffMs: 10 });
      jobs.behave = (call) => {
        if (call.attempt?.attempt === 1) throw new RetryLaterError('rate limited', 150);
      };
      await scheduler.enqueueCallback('r1');
      await until(() => jobs.calls.length >= 2, 'the retry');
      const [first, second] = jobs.of('callback');
      expect(second!.attempt).toEqual({ attempt: 2, isLastAttempt: false });
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(150);
    });

    it('does not retry JobNotNeededError or JobFailedPermanentlyError', async () => {
      const { scheduler } = await started({ attempts: 3, backoffMs: 20 });
      jobs.behave = (call) => {
        if (call.job === 'deliver') throw new JobNotNeededError('request already final');
        if (call.job === 'update') throw new JobFailedPermanentlyError('channel archived');
      };
      await scheduler.enqueueDelivery('r1', 'slack', 'C1');
      await scheduler.enqueueCardUpdate('r1', 'slack', 'C1');
      await until(() => jobs.calls.length >= 2, 'both jobs');
      await elapse(200);
      expect(jobs.of('deliver')).toHaveLength(1);
      expect(jobs.of('update')).toHaveLength(1);
    });

    it('a second enqueue of a job that is still waiting is a no-op', async () => {
      const { scheduler } = await started();
      await Promise.all([
        scheduler.enqueueDelivery('r1', 'slack', 'C1'),
        scheduler.enqueueDelivery('r1', 'slack', 'C1'),
        scheduler.enqueueDelivery('r1', 'slack', 'C1'),
        scheduler.enqueueCardUpdate('r1', 'slack', 'C1'),
        scheduler.enqueueCardUpdate('r1', 'slack', 'C1'),
        scheduler.enqueueCallback('r1'),
        scheduler.enqueueCallback('r1'),
      ]);
      await scheduler.enqueueDelivery('sentinel', 'slack', 'C1');
      await scheduler.enqueueCallback('sentinel');
      await until(
        () => jobs.of('deliver', 'sentinel').length > 0 && jobs.of('callback', 'sentinel').length > 0,
        'the sentinels',
      );
      await elapse(50);
      expect(jobs.of('deliver', 'r1')).toHaveLength(1);
      expect(jobs.of('update', 'r1')).toHaveLength(1);
      expect(jobs.of('callback', 'r1')).toHaveLength(1);
    });

    it('a card update enqueued while the same update runs, runs again', async () => {
      const { scheduler } = await started();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      jobs.behave = async (call) => {
        if (call.job === 'update' && jobs.of('update').length === 1) await gate;
      };
      await scheduler.enqueueCardUpdate('r1', 'slack', 'C1');
      await until(() => jobs.of('update').length === 1, 'the first update');
      await scheduler.enqueueCardUpdate('r1', 'slack', 'C1');
      release();
      await until(() => jobs.of('update').length >= 2, 'the second update');
      expect(jobs.of('update', 'r1')).toHaveLength(2);
    });

    it('a delivery or callback enqueued while the same job runs is not run beside it (a sweep finding the card unsent)', async () => {
      const { scheduler } = await started();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const running = { deliver: 0, callback: 0 };
      let most = 0;
      jobs.behave = async (call) => {
        if (call.requestId !== 'r1' || (call.job !== 'deliver' && call.job !== 'callback')) return;
        most = Math.max(most, ++running[call.job]);
        try {
          if (jobs.of(call.job, 'r1').length === 1) await gate;
        } finally {
          running[call.job]--;
        }
      };
      try {
        await scheduler.enqueueDelivery('r1', 'slack', 'C1');
        await scheduler.enqueueCallback('r1');
        await until(
          () => jobs.of('deliver', 'r1').length === 1 && jobs.of('callback', 'r1').length === 1,
          'the first runs',
        );
        // What the sweep does while the card is on its way: the card's row still says unsent.
        await scheduler.enqueueDelivery('r1', 'slack', 'C1');
        await scheduler.enqueueCallback('r1');
        await elapse(50);
        expect(most).toBe(1);
      } finally {
        release();
      }
      await scheduler.enqueueDelivery('sentinel', 'slack', 'C1');
      await until(() => jobs.of('deliver', 'sentinel').length > 0, 'the sentinel');
      await elapse(50);
      expect(most).toBe(1);
      expect(jobs.of('deliver', 'r1')).toHaveLength(1);
      expect(jobs.of('callback', 'r1')).toHaveLength(1);
    });

    it('jobs scheduled before start() run once it starts', async () => {
      const { scheduler, now } = await create();
      await scheduler.enqueueDelivery('early', 'web', '');
      await scheduler.scheduleExpiry('early', new Date(now() + 20));
      await scheduler.start(jobs);
      await until(
        () => jobs.of('deliver', 'early').length > 0 && jobs.of('expire', 'early').length > 0,
        'the early jobs',
      );
      expect(jobs.of('deliver', 'early')).toMatchObject([{ channel: 'web', target: '', attempt: { attempt: 1 } }]);
    });

    it('runs the sweep periodically', async () => {
      await started({ sweepEveryMs: 40 });
      await until(() => jobs.of('sweep').length >= 3, 'three sweeps');
      const sweeps = jobs.of('sweep');
      expect(sweeps[2]!.at).toBeGreaterThan(sweeps[0]!.at);
    });

    it('does not sweep when sweepEveryMs is 0', async () => {
      const { scheduler, now } = await started({ sweepEveryMs: 0 });
      await scheduler.scheduleExpiry('sentinel', new Date(now() + 100));
      await until(() => jobs.of('expire').length > 0, 'the sentinel expiry');
      expect(jobs.of('sweep')).toHaveLength(0);
    });

    it('stop() lets running jobs finish, then reports not ready and ignores new work', async () => {
      const { scheduler } = await started();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let finished = false;
      jobs.behave = async () => {
        await gate;
        await sleep(20);
        finished = true;
      };
      expect((await scheduler.health()).ready).toBe(true);
      await scheduler.enqueueDelivery('r1', 'slack', 'C1');
      await until(() => jobs.calls.length === 1, 'the job to start');
      const stopping = scheduler.stop();
      setTimeout(release, 10);
      await stopping;
      expect(finished).toBe(true);
      expect((await scheduler.health()).ready).toBe(false);
      await expect(scheduler.enqueueDelivery('r2', 'slack', 'C1')).resolves.toBeUndefined();
      await expect(scheduler.scheduleExpiry('r2', new Date(h!.now()))).resolves.toBeUndefined();
    });
  });
}
