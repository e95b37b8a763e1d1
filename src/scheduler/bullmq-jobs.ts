/**
 * @module scheduler/bullmq-jobs
 * What the BullMQ scheduler puts in Redis: the stable queue names, the job payloads, the deterministic job ids, and
 * the processor that turns a BullMQ job back into a call on {@link SchedulerJobs} (with the scheduler contract's
 * error mapping). Kept apart from `bullmq.ts` so the connection and buffering logic stays readable.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import {
  JobFailedPermanentlyError,
  JobNotNeededError,
  retryDelay,
  type JobAttempt,
  type SchedulerJobs,
} from './types.js';
import { describeError } from '../api/errors.js';

/**
 * The queue names, stable across releases: Redis keys are `<prefix>:<queue>:…` (default prefix `tollgate`).
 * Expiries get their own queue so a flood of card deliveries never delays a timeout.
 */
export const QUEUE_NAMES = {
  /**
   * The due-scan (a BullMQ job scheduler: every few seconds, for the whole cluster), which expires the rows whose
   * process is gone; and a delayed job per request woken early for a reminder or escalation step.
   */
  expiry: 'expiry',
  /** Card deliveries and card updates. */
  cards: 'cards',
  /** `callback_url` webhooks to runtimes. */
  callbacks: 'callbacks',
  /** The periodic sweep (a BullMQ job scheduler) and one-off catch-up runs after Redis comes back. */
  sweep: 'sweep',
} as const;

/** One of the scheduler's queues. */
export type QueueRole = keyof typeof QUEUE_NAMES;

/** The payload of a job. Only ids: the handler re-reads the row, which stays the truth. */
export type TollgateJobData =
  | { kind: 'expire'; requestId: string; at: number }
  | { kind: 'deliver'; requestId: string; channel: string; target: string }
  | { kind: 'update'; requestId: string; channel: string; target: string }
  | { kind: 'callback'; requestId: string }
  | { kind: 'due-scan' }
  | { kind: 'sweep' }
  | { kind: 'catch-up' };

/** The id of the job scheduler that runs the periodic sweep. */
export const SWEEP_SCHEDULER_ID = 'tollgate-sweep';

/** The id of the job scheduler that runs the due-scan. */
export const DUE_SCAN_SCHEDULER_ID = 'tollgate-due-scan';

/** The name of the custom backoff type: exponential from `backoffMs`, stretched by `RetryLaterError.retryAfterMs`. */
export const BACKOFF_TYPE = 'tollgate';

/** The queue a payload goes to. */
export function queueOf(data: TollgateJobData): QueueRole {
  switch (data.kind) {
    case 'expire':
    case 'due-scan':
      return 'expiry';
    case 'deliver':
    case 'update':
      return 'cards';
    case 'callback':
      return 'callbacks';
    default:
      return 'sweep';
  }
}

/**
 * The deterministic job id of a payload: the same card or request always maps to the same id, so adding it twice
 * while the first is waiting is a no-op in Redis, across processes. BullMQ forbids `:` in custom ids and channel
 * targets are free text, so channel and target are base64url-encoded.
 */
export function jobIdOf(data: TollgateJobData): string {
  switch (data.kind) {
    case 'expire':
      return `expire-${data.requestId}`;
    case 'deliver':
    case 'update':
      return `${data.kind}-${data.requestId}-${encode(data.channel)}-${encode(data.target)}`;
    case 'callback':
      return `callback-${data.requestId}`;
    default:
      return data.kind;
  }
}

function encode(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url') || '_';
}

/** What the processor needs from its scheduler. */
export interface ProcessorContext {
  jobs: () => SchedulerJobs | null;
  clock: Clock;
  logger: Logger;
  /** Called around expiry handlers so the scheduler knows which expiry jobs this process holds (they cannot be removed). */
  trackExpiry: (requestId: string, active: boolean) => void;
}

/** Kept as a name for the handler set: `SchedulerJobs.reconcile` is part of the contract now. */
type ReconcilingJobs = SchedulerJobs;

/**
 * The BullMQ processor shared by every queue: calls the matching handler with the attempt facts, and maps the
 * contract's errors — {@link JobNotNeededError} and {@link JobFailedPermanentlyError} become `UnrecoverableError`
 * (no retry); anything else is retried by BullMQ with the `tollgate` backoff.
 */
export function createProcessor(context: ProcessorContext) {
  return async (job: Job<TollgateJobData>, token?: string): Promise<void> => {
    const jobs = context.jobs() as ReconcilingJobs | null;
    if (!jobs) throw new Error('scheduler has no job handlers (not started)');
    const data = job.data;
    const attempts = job.opts.attempts ?? 1;
    const attempt: JobAttempt = { attempt: job.attemptsMade + 1, isLastAttempt: job.attemptsMade + 1 >= attempts };
    if (data.kind === 'expire' && data.at > context.clock.now()) {
      // Promoted early (clock skew between hosts): put it back until its time, without spending an attempt.
      await job.moveToDelayed(data.at, token);
      throw new DelayedError();
    }
    try {
      switch (data.kind) {
        case 'expire':
          context.trackExpiry(data.requestId, true);
          try {
            return await jobs.expire(data.requestId);
          } finally {
            context.trackExpiry(data.requestId, false);
          }
        case 'deliver':
          return await jobs.deliver(data.requestId, data.channel, data.target, attempt);
        case 'update':
          return await jobs.updateCard(data.requestId, data.channel, data.target, attempt);
        case 'callback':
          return await jobs.callback(data.requestId, attempt);
        case 'due-scan':
          return await jobs.dueScan();
        case 'sweep':
          return await jobs.sweep();
        case 'catch-up':
          // After Redis was unreachable (or lost its data): rebuild timers from the rows where possible.
          if (jobs.reconcile) await jobs.reconcile();
          else await jobs.sweep();
          return;
      }
    } catch (error) {
      const fields = { job: job.id, attempt: attempt.attempt, err: describeError(error) };
      if (error instanceof JobNotNeededError) {
        context.logger.debug(fields, 'job not needed');
        throw new UnrecoverableError(`not needed: ${describeError(error)}`);
      }
      if (error instanceof JobFailedPermanentlyError) {
        context.logger.warn(fields, 'job failed for good');
        throw new UnrecoverableError(describeError(error));
      }
      context.logger.warn(fields, attempt.isLastAttempt ? 'job failed for good' : 'job failed; will retry');
      throw error;
    }
  };
}

/** BullMQ's `backoffStrategy` setting for the {@link BACKOFF_TYPE} backoff, built on the contract's `retryDelay`. */
export function backoffStrategy(backoffMs: number) {
  return (attemptsMade: number, _type?: string, error?: Error): number => retryDelay(attemptsMade, backoffMs, error);
}

/** An error's message, for logs. */
