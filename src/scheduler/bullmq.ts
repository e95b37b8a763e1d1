/**
 * @module scheduler/bullmq
 * The production scheduler: timers and background jobs as BullMQ jobs in Redis, so they outlive any gateway process
 * and are shared by several (workers in every process compete for them).
 *
 * @remarks
 * - Job ids derive from request ids (see `bullmq-jobs.ts`), so the same expiry or card is one job however many
 *   processes schedule it; rescheduling an expiry to another time replaces the job.
 * - Redis away never blocks the gateway: every `schedule*` / `enqueue*` / `cancel*` call returns at once without
 *   throwing. While Redis is unreachable the operations wait in a bounded in-memory buffer (the last operation per job
 *   id wins) and are written when Redis is back; then a one-off catch-up job re-runs the gateway's reconciliation,
 *   which also repairs what the buffer could not hold or what Redis lost. See `docs/production.md`.
 * - The queues and their repeating jobs are `bullmq-queues.ts`, the workers `bullmq-workers.ts`, the expiry timers
 *   `bullmq-expiries.ts`, how a call becomes Redis state `bullmq-writer.ts`.
 */
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock } from '../utils/clock.js';
import { addCatchUp, closeQueues, installRepeatingJobs, openQueues, type BullMQQueues } from './bullmq-queues.js';
import { BullMQExpiries } from './bullmq-expiries.js';
import { BullMQWorkers } from './bullmq-workers.js';
import { BullMQWriter } from './bullmq-writer.js';
import { OperationBuffer, type BufferedOperation } from './operation-buffer.js';
import {
  closeRedis,
  createFailFastRedis,
  createWorkerRedis,
  withTimeout,
  type RedisConnectionOptions,
} from './redis-connections.js';
import { schedulerDefaults, type Scheduler, type SchedulerJobs, type SchedulerOptions } from './types.js';
import { describeError } from '../api/errors.js';

/** Options of {@link BullMQScheduler}. */
export interface BullMQSchedulerOptions extends SchedulerOptions {
  /** Redis: a URL (`REDIS_URL`) or ioredis options. */
  connection: RedisConnectionOptions;
  /** Key prefix of every queue (default `tollgate`): keys are `<prefix>:<queue>:…`. */
  prefix?: string;
  logger?: Logger;
  /** Used to turn expiry times into delays; the system clock by default. */
  clock?: Clock;
  /** Jobs one process runs at once, per queue (default 10). */
  concurrency?: number;
  /** Longest a Redis command may take before the call gives up and buffers (default 2000 ms). */
  commandTimeoutMs?: number;
  /** Operations kept while Redis is unreachable (default 100 000); beyond that they are dropped and reconciliation repairs. */
  maxBuffered?: number;
  /** How long `start()` waits for Redis before returning anyway (default 1000 ms). */
  startWaitMs?: number;
  /** How long a job stays locked to a process that stopped answering before another takes it over (default 30 000 ms). */
  lockDurationMs?: number;
  /**
   * The backstop of the expiry timers (default 5000 ms). The process that scheduled an expiry fires it on time from
   * one local timer; when that process is gone, the due-scan (one job for the whole cluster, this often) expires the
   * row, and a wake-up for a reminder or escalation step fires from its own Redis job, this long after its time (the
   * job is removed once the local run has done its work). 0 turns the due-scan off.
   */
  expiryBackstopMs?: number;
}

/**
 * Durable jobs in Redis through BullMQ.
 * @example
 * const scheduler = new BullMQScheduler({ connection: process.env.REDIS_URL!, logger });
 * const gateway = new Gateway({ store, scheduler, feed: new RedisChangeFeed({ connection: process.env.REDIS_URL! }) });
 * await gateway.start(); // starts the workers and the sweep
 */
export class BullMQScheduler implements Scheduler {
  readonly name = 'bullmq';
  /** The key prefix in Redis. */
  readonly prefix: string;
  private readonly settings: Required<SchedulerOptions>;
  private readonly options: BullMQSchedulerOptions;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly commands: Redis;
  private readonly workerConnection: Redis;
  /** The queues and their repeating jobs (`bullmq-queues.ts`). */
  private readonly queues: BullMQQueues;
  /** One worker per queue, and the handlers running here (`bullmq-workers.ts`). */
  private readonly workers: BullMQWorkers;
  private readonly buffer: OperationBuffer;
  private readonly writer: BullMQWriter;
  private jobs: SchedulerJobs | null = null;
  private stopped = false;
  private wasOnline = false;
  /** Redis went away after having been reachable: when it returns, a catch-up reconciliation runs. */
  private outage = false;
  private droppedAtLastCatchUp = 0;
  private lastError: string | null = null;
  private readonly commandTimeoutMs: number;
  /** See {@link BullMQSchedulerOptions.expiryBackstopMs}. */
  private readonly backstopMs: number;
  /** Expiries fired here on time, follow-ups backed by a Redis job (`bullmq-expiries.ts`). */
  private readonly expiries: BullMQExpiries;

  constructor(options: BullMQSchedulerOptions) {
    this.options = options;
    this.settings = schedulerDefaults(options);
    this.prefix = options.prefix ?? 'tollgate';
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2000;
    this.backstopMs = options.expiryBackstopMs ?? 5000;
    this.buffer = new OperationBuffer(
      options.maxBuffered ?? 100_000,
      this.logger,
      (op) => withTimeout(this.writer.apply(op), this.commandTimeoutMs, 'job operation'),
      () => this.commands.status === 'ready' && !this.stopped,
    );
    this.commands = createFailFastRedis(options.connection, this.commandTimeoutMs, `${this.prefix}:scheduler`);
    this.workerConnection = createWorkerRedis(options.connection, `${this.prefix}:workers`);
    this.commands.on('error', (error: Error) => this.noteError(error));
    this.workerConnection.on('error', (error: Error) => this.noteError(error));
    this.commands.on('ready', () => void this.online());
    this.commands.on('close', () => {
      if (!this.wasOnline || this.stopped || this.outage) return;
      this.outage = true;
      this.logger.warn('scheduler lost Redis; buffering job operations until it is back');
    });
    this.queues = openQueues(this.commands, this.prefix, (error) => this.noteError(error));
    this.workers = new BullMQWorkers({
      connection: this.workerConnection,
      prefix: this.prefix,
      clock: this.clock,
      logger: this.logger,
      concurrency: options.concurrency ?? 50,
      lockDurationMs: options.lockDurationMs ?? 30_000,
      backoffMs: this.settings.backoffMs,
      onError: (error) => this.noteError(error),
    });
    this.writer = new BullMQWriter(
      this.queues,
      this.settings,
      this.clock,
      (id) => this.workers.isFiringHere(id),
      this.backstopMs,
    );
    this.expiries = new BullMQExpiries({
      clock: this.clock,
      logger: this.logger,
      attempts: Math.max(this.settings.attempts, 10),
      backoffMs: this.settings.backoffMs,
      submit: (op) => this.submit(op),
    });
  }

  async start(jobs: SchedulerJobs): Promise<void> {
    this.jobs = jobs;
    this.stopped = false;
    this.workers.start(() => this.jobs);
    if (this.commands.status === 'ready') await this.online();
    else await this.waitForRedis(this.options.startWaitMs ?? 1000);
    this.expiries.start(jobs);
  }

  async scheduleExpiry(requestId: string, at: Date, expiresAt?: Date): Promise<void> {
    await this.expiries.schedule(requestId, at, expiresAt);
  }

  async cancelExpiry(requestId: string): Promise<void> {
    await this.expiries.cancel(requestId);
  }

  async enqueueDelivery(requestId: string, channel: string, target: string): Promise<void> {
    await this.submit({ kind: 'add', data: { kind: 'deliver', requestId, channel, target } });
  }

  async enqueueCardUpdate(requestId: string, channel: string, target: string): Promise<void> {
    await this.submit({ kind: 'add', data: { kind: 'update', requestId, channel, target } });
  }

  async enqueueCallback(requestId: string): Promise<void> {
    await this.submit({ kind: 'add', data: { kind: 'callback', requestId } });
  }

  async health(): Promise<{ ready: boolean; detail?: string }> {
    if (this.stopped) return { ready: false, detail: 'scheduler stopped' };
    const buffered = this.buffer.size ? `; ${this.buffer.size} job operations buffered` : '';
    if (this.commands.status !== 'ready') {
      return {
        ready: false,
        detail: `redis ${this.commands.status}${this.lastError ? ` (${this.lastError})` : ''}${buffered}`,
      };
    }
    try {
      await withTimeout(this.commands.ping(), this.commandTimeoutMs, 'redis ping');
      return this.buffer.size ? { ready: true, detail: `catching up${buffered}` } : { ready: true };
    } catch (error) {
      return { ready: false, detail: `redis ping failed (${describeError(error)})${buffered}` };
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.expiries.stop();
    this.buffer.stopRetrying();
    // With Redis away, BullMQ's graceful close waits for a connection that never comes: wait for the handlers
    // running here ourselves, then force-close.
    const reachable =
      this.commands.status === 'ready' &&
      (await withTimeout(this.commands.ping(), 1000, 'redis ping').then(
        () => true,
        () => false,
      ));
    if (!reachable) {
      this.commands.disconnect();
      this.workerConnection.disconnect();
    }
    await this.workers.close(reachable);
    await this.buffer.idle();
    if (this.buffer.size)
      this.logger.warn(
        { dropped: this.buffer.size },
        'scheduler stopped with buffered job operations; reconciliation at next start repairs them',
      );
    await closeQueues(this.queues);
    await Promise.all([closeRedis(this.commands), closeRedis(this.workerConnection)]);
  }

  /** Counters for metrics and tests: operations waiting for Redis, dropped for lack of room, failed for other reasons. */
  get stats(): { buffered: number; dropped: number; failed: number } {
    return { buffered: this.buffer.size, dropped: this.buffer.dropped, failed: this.buffer.failed };
  }

  /** Runs an operation now, or buffers it (see `operation-buffer.ts`); a stopped scheduler ignores it. */
  private async submit(op: BufferedOperation): Promise<void> {
    if (this.stopped) this.logger.warn({ op: op.kind }, 'scheduler stopped; job operation ignored');
    else await this.buffer.submit(op);
  }

  /** Redis is (back) up: write what was buffered, (re)install the sweep, and catch up after an outage. */
  private async online(): Promise<void> {
    if (this.stopped) return;
    this.wasOnline = true;
    this.lastError = null;
    await this.buffer.flush();
    if (!this.jobs || this.stopped) return;
    try {
      await installRepeatingJobs(this.queues, {
        backstopMs: this.backstopMs,
        sweepEveryMs: this.settings.sweepEveryMs,
      });
      if (this.outage || this.buffer.dropped > this.droppedAtLastCatchUp) {
        this.outage = false;
        this.droppedAtLastCatchUp = this.buffer.dropped;
        this.logger.info('Redis is back; scheduling a catch-up reconciliation');
        await addCatchUp(this.queues);
      }
    } catch (error) {
      this.noteError(error);
    }
  }

  private async waitForRedis(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      this.commands.once('ready', done);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    if (this.commands.status === 'ready') await this.online();
    else
      this.logger.warn(
        { redis: this.commands.status, err: this.lastError },
        'Redis is not reachable; the gateway runs on and buffers jobs until it is',
      );
  }

  private noteError(error: unknown) {
    const message = describeError(error);
    if (message !== this.lastError) this.logger.warn({ err: message }, 'scheduler Redis error');
    this.lastError = message;
  }
}
