/**
 * @module scheduler/types
 * The scheduler contract: timers and background jobs, kept apart from the rows they act on. Two implementations
 * pass one contract suite (`test/contracts/scheduler.contract.ts`): `in-process.ts` (timers in this process, the
 * embedded default) and `bullmq.ts` (durable jobs in Redis, shared by several gateway processes).
 *
 * @remarks Deliberately left out:
 * - State. The database is the truth; a job carries only ids and re-reads the row, so a duplicate or stale job is
 *   harmless and every job is idempotent. A job whose request is already final throws {@link JobNotNeededError}.
 * - Exactly-once. Implementations aim for it (job ids derived from request ids) but the gateway's compare-and-set
 *   is what guarantees a request expires once. With BullMQ every process fires the expiries it scheduled itself, on
 *   time, from one local timer: two replicas that both scheduled a request both run `expire` for it, and the second
 *   finds it final. What backs those timers up is one due-scan for the whole cluster, not a Redis job per request.
 * - Recovery after a crash. The in-process scheduler forgets everything on exit; the gateway's start-up
 *   reconciliation and the periodic sweep reschedule from the rows.
 */

/** Facts about the current attempt of a job, for the handler's bookkeeping. */
export interface JobAttempt {
  /** 1 for the first try. */
  attempt: number;
  /** True when no retry follows if this attempt fails. */
  isLastAttempt: boolean;
}

/** What the gateway does when a job runs. A handler that throws is retried with backoff, up to the job's attempts. */
export interface SchedulerJobs {
  /** The expiry timer of a request fired. */
  expire(requestId: string): Promise<void>;
  /** Send the request's card to one channel target. */
  deliver(requestId: string, channel: string, target: string, attempt: JobAttempt): Promise<void>;
  /** Rewrite one card after a state change. */
  updateCard(requestId: string, channel: string, target: string, attempt: JobAttempt): Promise<void>;
  /** POST the verdict to the request's `callback_url`. */
  callback(requestId: string, attempt: JobAttempt): Promise<void>;
  /** The periodic safety net: expire overdue rows, re-enqueue undelivered cards. */
  sweep(): Promise<void>;
  /**
   * Expire every pending row past its time (on several replicas each row by one of them). A scheduler whose timers
   * live in one process runs it every few seconds to back up the timers of a process that is gone.
   */
  dueScan(): Promise<void>;
  /**
   * Rebuilds every timer from the rows (overdue rows expire, the rest are rescheduled, unsent cards re-enqueued).
   * A scheduler that lost timers (Redis was unreachable, or lost its data) calls it to catch up.
   */
  reconcile?(): Promise<unknown>;
}

/** Retry and timing settings shared by both implementations. */
export interface SchedulerOptions {
  /** Tries for deliveries, card updates and callbacks (default 5). */
  attempts?: number;
  /** First retry delay in ms; doubles each time (default 1000). */
  backoffMs?: number;
  /** How often the sweep runs, in ms (default 60 000); 0 turns it off. */
  sweepEveryMs?: number;
}

/** Timers and background jobs. */
export interface Scheduler {
  /** `in-process` or `bullmq`. */
  readonly name: string;
  /** Starts running jobs with these handlers (and the periodic sweep). */
  start(jobs: SchedulerJobs): Promise<void>;
  /**
   * Fires `expire(requestId)` at `at` (at once if it is past). Scheduling the same request again replaces the time.
   * `expiresAt` is the request's own expiry when `at` is earlier (a reminder or escalation step wakes it first): such
   * a wake-up is the one a row's `expires_at` cannot stand in for, so a durable scheduler keeps a job for it.
   */
  scheduleExpiry(requestId: string, at: Date, expiresAt?: Date): Promise<void>;
  /** Forgets a request's expiry timer; harmless when there is none. */
  cancelExpiry(requestId: string): Promise<void>;
  /** Runs `deliver` soon; a second enqueue of the same card while one is waiting is a no-op. */
  enqueueDelivery(requestId: string, channel: string, target: string): Promise<void>;
  /** Runs `updateCard` soon. */
  enqueueCardUpdate(requestId: string, channel: string, target: string): Promise<void>;
  /** Runs `callback` soon. */
  enqueueCallback(requestId: string): Promise<void>;
  /** Whether jobs can be scheduled now, and if not, why (for `/readyz`). */
  health(): Promise<{ ready: boolean; detail?: string }>;
  /** Stops taking jobs, lets running ones finish, closes connections. */
  stop(): Promise<void>;
}

/**
 * Thrown by a job handler when the job has nothing left to do (its request is already final, or gone).
 * The scheduler does not retry it; BullMQ maps it to `UnrecoverableError`.
 */
export class JobNotNeededError extends Error {
  override readonly name = 'JobNotNeededError';
}

/** Thrown by a job handler when retrying cannot help; the job fails at once. */
export class JobFailedPermanentlyError extends Error {
  override readonly name = 'JobFailedPermanentlyError';
}

/** Thrown by a job handler to ask for a retry no sooner than `retryAfterMs` (a platform's Retry-After). */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Resolved defaults of {@link SchedulerOptions}. */
export function schedulerDefaults(options: SchedulerOptions = {}): Required<SchedulerOptions> {
  return {
    attempts: options.attempts ?? 5,
    backoffMs: options.backoffMs ?? 1000,
    sweepEveryMs: options.sweepEveryMs ?? 60_000,
  };
}

/** The delay before retry number `attempt + 1`: exponential from `backoffMs`, at least `retryAfterMs` when asked. */
export function retryDelay(attempt: number, backoffMs: number, error: unknown): number {
  const exponential = backoffMs * 2 ** (attempt - 1);
  return error instanceof RetryLaterError ? Math.max(exponential, error.retryAfterMs) : exponential;
}
