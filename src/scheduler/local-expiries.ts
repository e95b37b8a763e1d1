/**
 * @module scheduler/local-expiries
 * The BullMQ scheduler's on-time path for expiries: the process that schedules an expiry also holds it behind one local
 * timer (see `due-timers.ts`) and runs the job itself when it falls due, so 10 000 requests expiring in one second
 * are not 10 000 Redis jobs to promote, lock and finish first. For when this process is gone, the cluster's due-scan
 * backs up an expiry, and a Redis job, due a little later, a follow-up's earlier wake-up.
 */
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import { describeError } from '../api/errors.js';
import { DueTimers } from './due-timers.js';
import { JobNotNeededError, retryDelay, type SchedulerJobs } from './types.js';

/** What {@link LocalExpiries} needs. */
export interface LocalExpiriesOptions {
  clock: Clock;
  logger: Logger;
  /** Tries here before leaving the expiry to its Redis job. */
  attempts: number;
  backoffMs: number;
  /** The job ran here and did its work (or had none left): its Redis job, if it has one, can go. */
  settled(requestId: string): void;
}

/** Expiries fired in this process, retried with backoff, counted while they run. */
export class LocalExpiries {
  private readonly timers: DueTimers;
  private readonly attempts = new Map<string, number>();
  /** Fell due before `start()`. */
  private readonly early = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private jobs: SchedulerJobs | null = null;
  private stopped = false;

  constructor(private readonly options: LocalExpiriesOptions) {
    this.timers = new DueTimers(options.clock, (ids) => ids.forEach((id) => this.fire(id)));
  }

  /** Starts running jobs, first those that fell due before. */
  start(jobs: SchedulerJobs): void {
    this.jobs = jobs;
    this.stopped = false;
    for (const id of this.early) this.fire(id);
    this.early.clear();
  }

  /** Fires `expire(requestId)` here at `at`, replacing an earlier time. */
  set(requestId: string, at: number): void {
    if (this.stopped) return;
    this.attempts.delete(requestId);
    this.timers.set(requestId, at);
  }

  delete(requestId: string): void {
    this.timers.delete(requestId);
  }

  /** Forgets every timer and waits for the jobs running here. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clear();
    this.early.clear();
    await Promise.allSettled([...this.running]);
  }

  /**
   * Runs the job; once it has done its work its Redis job goes — unless the job armed the request again (a reminder or
   * escalation step ran, and the next step has its own timer and job now).
   */
  private fire(requestId: string): void {
    const jobs = this.jobs;
    if (this.stopped) return;
    if (!jobs) {
      this.early.add(requestId);
      return;
    }
    const attempt = (this.attempts.get(requestId) ?? 0) + 1;
    const done = () => {
      this.attempts.delete(requestId);
      if (!this.timers.has(requestId)) this.options.settled(requestId);
    };
    const run = jobs.expire(requestId).then(done, (error: unknown) => {
      if (error instanceof JobNotNeededError) return done();
      const last = attempt >= this.options.attempts;
      this.options.logger.warn(
        { job: `expire:${requestId}`, attempt, err: describeError(error) },
        last ? 'expiry failed here; its Redis job retries it' : 'expiry failed; will retry',
      );
      if (last || this.stopped || this.timers.has(requestId)) return;
      this.attempts.set(requestId, attempt);
      this.timers.set(requestId, this.options.clock.now() + retryDelay(attempt, this.options.backoffMs, error));
    });
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}
