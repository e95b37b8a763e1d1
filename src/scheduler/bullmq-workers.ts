/**
 * @module scheduler/bullmq-workers
 * The worker side of {@link BullMQScheduler} (`bullmq.ts`): one BullMQ worker per queue, all running the shared
 * processor (`bullmq-jobs.ts`) over the gateway's handlers. It keeps which handlers run in this process, so `close`
 * can wait for them when BullMQ cannot (Redis away), and which expiry jobs run here (they are locked, so the writer
 * must not remove them).
 */
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import { QUEUE_NAMES, backoffStrategy, createProcessor, type QueueRole, type TollgateJobData } from './bullmq-jobs.js';
import { withTimeout } from './redis-connections.js';
import type { SchedulerJobs } from './types.js';

/** What the workers are started with. */
export interface BullMQWorkersOptions {
  connection: Redis;
  prefix: string;
  clock: Clock;
  logger: Logger;
  /** Jobs one process runs at once, per queue (the sweep's queue runs one). */
  concurrency: number;
  lockDurationMs: number;
  backoffMs: number;
  onError(error: Error): void;
}

/** The scheduler's workers; see the module comment. */
export class BullMQWorkers {
  private readonly workers: Worker<TollgateJobData>[] = [];
  /** Expiry jobs this process is running right now: they are locked, so removing them would fail. */
  private readonly runningExpiries = new Map<string, number>();
  /** Handlers running in this process, so {@link close} can wait for them even when BullMQ cannot. */
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: BullMQWorkersOptions) {}

  /** Whether an expiry job of `requestId` is running in this process. */
  isFiringHere(requestId: string): boolean {
    return this.runningExpiries.has(requestId);
  }

  /** Starts one worker per queue over the handlers `jobs()` returns. */
  start(jobs: () => SchedulerJobs | null): void {
    const { clock, logger } = this.options;
    const handle = createProcessor({ jobs, clock, logger, trackExpiry: (id, active) => this.trackExpiry(id, active) });
    const processor: typeof handle = (job, token) => {
      const running = handle(job, token);
      const settled = running.then(
        () => undefined,
        () => undefined,
      );
      this.running.add(settled);
      void settled.then(() => this.running.delete(settled));
      return running;
    };
    for (const role of Object.keys(QUEUE_NAMES) as QueueRole[]) {
      const worker = new Worker<TollgateJobData>(QUEUE_NAMES[role], processor, {
        connection: this.options.connection,
        prefix: this.options.prefix,
        concurrency: role === 'sweep' ? 1 : this.options.concurrency,
        lockDuration: this.options.lockDurationMs,
        settings: { backoffStrategy: backoffStrategy(this.options.backoffMs) },
      });
      worker.on('error', (error: Error) => this.options.onError(error));
      this.workers.push(worker);
    }
  }

  /**
   * Closes the workers. With Redis away (`reachable` false) BullMQ's graceful close waits for a connection that never
   * comes: the handlers running here are waited for first (the caller has disconnected), then the workers force-closed.
   */
  async close(reachable: boolean): Promise<void> {
    if (!reachable)
      await withTimeout(Promise.allSettled([...this.running]), 15_000, 'running jobs').catch(() => undefined);
    await Promise.all(
      this.workers.map(async (worker) => {
        try {
          await withTimeout(worker.close(!reachable), reachable ? 15_000 : 2000, 'worker close');
        } catch {
          await withTimeout(worker.disconnect(), 2000, 'worker disconnect').catch(() => undefined);
        }
      }),
    );
    this.workers.length = 0;
  }

  private trackExpiry(requestId: string, active: boolean) {
    const count = (this.runningExpiries.get(requestId) ?? 0) + (active ? 1 : -1);
    if (count > 0) this.runningExpiries.set(requestId, count);
    else this.runningExpiries.delete(requestId);
  }
}
