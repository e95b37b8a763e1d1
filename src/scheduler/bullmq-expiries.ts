/**
 * @module scheduler/bullmq-expiries
 * The expiry timers of {@link BullMQScheduler} (`bullmq.ts`): each expiry this process schedules is fired here on time
 * from a local timer (`local-expiries.ts`); only a follow-up's wake-up (a reminder or escalation step, earlier than
 * the request's expiry) also gets a Redis job, since the cluster's due-scan reads only `expires_at`. The Redis job is
 * removed once the local run has done its work, or when the request's timer moves or stops.
 */
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import { LocalExpiries } from './local-expiries.js';
import type { BufferedOperation } from './operation-buffer.js';
import type { SchedulerJobs } from './types.js';

/** What the expiry timers need: the local timers' settings, and how a Redis operation is submitted. */
export interface BullMQExpiriesOptions {
  clock: Clock;
  logger: Logger;
  attempts: number;
  backoffMs: number;
  submit(op: BufferedOperation): Promise<void>;
}

/** This process's expiry timers; see the module comment. */
export class BullMQExpiries {
  /** Expiries scheduled by this process, fired here on time; the due-scan backs them up (see `expiryBackstopMs`). */
  private readonly local: LocalExpiries;
  /** Requests whose follow-up wake-up this process gave a Redis job (the only expiry jobs there are). */
  private readonly withJob = new Set<string>();

  constructor(private readonly options: BullMQExpiriesOptions) {
    const { clock, logger, attempts, backoffMs } = options;
    this.local = new LocalExpiries({
      clock,
      logger,
      attempts,
      backoffMs,
      settled: (requestId) => void this.dropJob(requestId),
    });
  }

  /** Starts firing, first the expiries that fell due before. */
  start(jobs: SchedulerJobs): void {
    this.local.start(jobs);
  }

  /** Stops firing; resolves once the expiries running here have finished. */
  stop(): Promise<void> {
    return this.local.stop();
  }

  /** Arms the timer of `requestId` for `at` (a follow-up's wake-up when before `expiresAt`). */
  async schedule(requestId: string, at: Date, expiresAt?: Date): Promise<void> {
    this.local.set(requestId, at.getTime());
    if (expiresAt && at.getTime() < expiresAt.getTime()) {
      // A follow-up wake-up: the due-scan reads only expires_at, so it gets a Redis job of its own.
      this.withJob.add(requestId);
      await this.options.submit({ kind: 'add', data: { kind: 'expire', requestId, at: at.getTime() } });
    } else {
      await this.dropJob(requestId); // an earlier follow-up's job would only wake the request early for nothing
    }
  }

  /** Stops the timer of `requestId`. */
  async cancel(requestId: string): Promise<void> {
    this.local.delete(requestId);
    await this.dropJob(requestId);
  }

  /**
   * Removes the Redis job this process added for a request, if it added one. A job another process added (it ran the
   * previous follow-up) stays, fires at its time, and finds the request final or not yet due: nothing to do.
   */
  private async dropJob(requestId: string): Promise<void> {
    if (this.withJob.delete(requestId)) await this.options.submit({ kind: 'cancel-expiry', requestId });
  }
}
