/**
 * @module scheduler/in-process
 * The embedded default scheduler: timers and a retry loop inside this process, on the injectable clock. Nothing
 * survives the process; the gateway's start-up reconciliation rebuilds every timer from the rows.
 */
import { pino, type Logger } from 'pino';
import { systemClock, type Clock, type ClockTimer } from '../utils/clock.js';
import {
  JobFailedPermanentlyError,
  JobNotNeededError,
  retryDelay,
  schedulerDefaults,
  type JobAttempt,
  type Scheduler,
  type SchedulerJobs,
  type SchedulerOptions,
} from './types.js';
import { describeError } from '../api/errors.js';
import { DueTimers } from './due-timers.js';

/** One run of a job with the scheduler's handlers. */
type JobRun = (jobs: SchedulerJobs, attempt: JobAttempt) => Promise<void>;

/** Options of {@link InProcessScheduler}. */
export interface InProcessSchedulerOptions extends SchedulerOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * Timers in this process.
 * @example const scheduler = new InProcessScheduler({ clock: new ManualClock() });
 */
export class InProcessScheduler implements Scheduler {
  readonly name = 'in-process';
  private readonly settings: Required<SchedulerOptions>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private jobs: SchedulerJobs | null = null;
  /** Every expiry behind one clock timer: the requests of one second fire together (see `due-timers.ts`). */
  private readonly expiries: DueTimers;
  /** Jobs queued or waiting for a retry, by key: a second enqueue of the same job is a no-op. */
  private readonly queued = new Map<string, ClockTimer>();
  /**
   * Jobs running now, by key, each with the run a card update enqueued meanwhile asks for (null: none). A delivery or
   * callback enqueued while it runs is dropped, as BullMQ drops a job whose id is active: the sweep re-enqueues every
   * card its row still calls unsent, and a card on its way is one, so running it beside the first sent it twice. An
   * update runs again after, to show what changed while the first rendered.
   */
  private readonly active = new Map<string, JobRun | null>();
  private readonly running = new Set<Promise<void>>();
  /** Jobs that fell due before `start()` wait here and run once handlers exist. */
  private readonly early: (() => void)[] = [];
  private sweepTimer: ClockTimer | null = null;
  private stopped = false;

  constructor(options: InProcessSchedulerOptions = {}) {
    this.settings = schedulerDefaults(options);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.expiries = new DueTimers(this.clock, (ids) => {
      for (const id of ids) this.run(`expire:${id}`, 1, (jobs) => jobs.expire(id));
    });
  }

  async start(jobs: SchedulerJobs): Promise<void> {
    this.jobs = jobs;
    this.stopped = false;
    for (const run of this.early.splice(0)) run();
    this.armSweep();
  }

  async scheduleExpiry(requestId: string, at: Date): Promise<void> {
    this.expiries.set(requestId, at.getTime());
  }

  async cancelExpiry(requestId: string): Promise<void> {
    this.expiries.delete(requestId);
  }

  async enqueueDelivery(requestId: string, channel: string, target: string): Promise<void> {
    this.enqueue(`deliver:${requestId}:${channel}:${target}`, (jobs, attempt) =>
      jobs.deliver(requestId, channel, target, attempt),
    );
  }

  async enqueueCardUpdate(requestId: string, channel: string, target: string): Promise<void> {
    this.enqueue(`update:${requestId}:${channel}:${target}`, (jobs, attempt) =>
      jobs.updateCard(requestId, channel, target, attempt),
    );
  }

  async enqueueCallback(requestId: string): Promise<void> {
    this.enqueue(`callback:${requestId}`, (jobs, attempt) => jobs.callback(requestId, attempt));
  }

  async health() {
    return { ready: !this.stopped };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sweepTimer?.cancel();
    for (const timer of this.queued.values()) timer.cancel();
    this.expiries.clear();
    this.queued.clear();
    await Promise.allSettled([...this.running]);
  }

  /** How many expiries are waiting (for tests and metrics). */
  get scheduledExpiries(): number {
    return this.expiries.size;
  }

  private enqueue(key: string, job: JobRun) {
    if (this.queued.has(key) || this.stopped) return;
    if (this.active.has(key)) {
      if (key.startsWith('update:')) this.active.set(key, job);
      return;
    }
    this.queued.set(
      key,
      this.clock.setTimeout(() => this.run(key, 1, job), 0),
    );
  }

  /** Runs one attempt; on failure re-arms with exponential backoff until the attempts are used up. */
  private run(key: string, attempt: number, job: JobRun): void {
    const jobs = this.jobs;
    if (this.stopped) return;
    if (!jobs) {
      this.early.push(() => this.run(key, attempt, job));
      return;
    }
    this.queued.delete(key);
    this.active.set(key, null);
    const attempts = key.startsWith('expire:') ? Math.max(this.settings.attempts, 10) : this.settings.attempts;
    const isLastAttempt = attempt >= attempts;
    const promise = job(jobs, { attempt, isLastAttempt })
      .catch((error: unknown) => {
        if (error instanceof JobNotNeededError) return;
        const permanent = error instanceof JobFailedPermanentlyError;
        this.logger.warn(
          { job: key, attempt, err: describeError(error) },
          permanent || isLastAttempt ? 'job failed for good' : 'job failed; will retry',
        );
        // A fresh enqueue of the same job while this attempt ran supersedes the retry.
        if (permanent || isLastAttempt || this.stopped || this.queued.has(key) || this.active.get(key)) return;
        const delay = retryDelay(attempt, this.settings.backoffMs, error);
        this.queued.set(
          key,
          this.clock.setTimeout(() => this.run(key, attempt + 1, job), delay),
        );
      })
      .finally(() => {
        this.running.delete(promise);
        const again = this.active.get(key);
        this.active.delete(key);
        if (again) this.enqueue(key, again);
      });
    this.running.add(promise);
  }

  private armSweep() {
    if (this.settings.sweepEveryMs <= 0 || this.stopped) return;
    this.sweepTimer = this.clock.setTimeout(() => {
      const jobs = this.jobs;
      if (!jobs || this.stopped) return;
      const promise = jobs
        .sweep()
        .catch((error: unknown) => this.logger.error({ err: error }, 'sweep failed'))
        .finally(() => {
          this.running.delete(promise);
          this.armSweep();
        });
      this.running.add(promise);
    }, this.settings.sweepEveryMs);
  }
}
