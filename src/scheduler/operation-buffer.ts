/**
 * @module scheduler/operation-buffer
 * The BullMQ scheduler's job writes: applied at once while Redis answers, and kept here while it does not, so the
 * gateway never waits on Redis and never sees a scheduler error. One entry per job id: a later operation on the same
 * job replaces the earlier one (schedule then cancel leaves only the cancel). Bounded; what does not fit is counted and
 * left to the gateway's reconciliation, which rebuilds timers from the rows.
 */
import type { Logger } from 'pino';
import { jobIdOf, type TollgateJobData } from './bullmq-jobs.js';
import { isConnectionError } from './redis-connections.js';
import { describeError } from '../api/errors.js';

/** A scheduler call, as it waits for Redis. */
export type BufferedOperation = { kind: 'add'; data: TollgateJobData } | { kind: 'cancel-expiry'; requestId: string };

/** The job id an operation acts on: the buffer keeps the last operation per id. */
export function operationKey(op: BufferedOperation): string {
  return op.kind === 'cancel-expiry' ? jobIdOf({ kind: 'expire', requestId: op.requestId, at: 0 }) : jobIdOf(op.data);
}

/** Operations waiting for Redis, written in arrival order once it is back. */
export class OperationBuffer {
  private readonly pending = new Map<string, BufferedOperation>();
  private flushing: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Operations thrown away because the buffer was full. */
  dropped = 0;
  /** Operations that failed with Redis reachable, and were given up. */
  failed = 0;

  /**
   * @param execute writes one operation to Redis.
   * @param canRun whether Redis looks reachable and the scheduler runs: operations are written only while it holds.
   */
  constructor(
    private readonly max: number,
    private readonly logger: Logger,
    private readonly execute: (op: BufferedOperation) => Promise<void>,
    private readonly canRun: () => boolean,
  ) {}

  /**
   * Writes `op` now, or keeps it while Redis is unreachable or earlier operations wait, so two operations on the same
   * job are always applied in call order. Never throws.
   */
  async submit(op: BufferedOperation): Promise<void> {
    if (!this.canRun() || this.busy || this.size) {
      this.put(op);
      this.retrySoon();
      return;
    }
    try {
      await this.execute(op);
    } catch (error) {
      // Often the first sign that Redis went away (the client still says "ready"): keep it and retry shortly.
      this.logger.debug({ op: op.kind, err: describeError(error) }, 'job operation failed; retrying from the buffer');
      this.put(op);
      this.retrySoon();
    }
  }

  /** Flushes a moment from now if Redis looks reachable, backing off while operations stay (a reconnect flushes anyway). */
  private retrySoon(delayMs = 250): void {
    if (this.retryTimer || !this.canRun()) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.canRun()) return;
      void this.flush().then(() => {
        if (this.size) this.retrySoon(Math.min(delayMs * 2, 5000));
      });
    }, delayMs);
    this.retryTimer.unref();
  }

  /** Stops the retries (the scheduler stops; what is left waits for reconciliation at the next start). */
  stopRetrying(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Operations waiting. */
  get size(): number {
    return this.pending.size;
  }

  /** True while a flush runs: new operations must queue behind it to keep their order. */
  get busy(): boolean {
    return this.flushing !== null;
  }

  /** Keeps `op` until the next flush, replacing an earlier operation on the same job. */
  put(op: BufferedOperation): void {
    const key = operationKey(op);
    if (this.pending.delete(key) || this.pending.size < this.max) {
      this.pending.set(key, op);
      if (this.pending.size === 1 && !this.flushing) this.logger.warn('Redis unreachable; buffering job operations');
      return;
    }
    if (this.dropped++ % 1000 === 0)
      this.logger.error(
        { dropped: this.dropped, max: this.max },
        'job operation buffer full; dropping (reconciliation repairs when Redis is back)',
      );
  }

  /**
   * Writes buffered operations in order while `canRun()` holds. An operation that fails because Redis went away
   * again stays for next time; one that fails otherwise is logged and dropped (retrying cannot help it).
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (!this.pending.size) return Promise.resolve();
    const count = this.pending.size;
    this.flushing = (async () => {
      while (this.pending.size && this.canRun()) {
        const [key, op] = this.pending.entries().next().value as [string, BufferedOperation];
        this.pending.delete(key);
        try {
          await this.execute(op);
        } catch (error) {
          if (this.canRun() && !isConnectionError(error)) {
            this.failed++;
            this.logger.error(
              { job: key, err: describeError(error) },
              'job operation failed; dropped (the sweep and reconciliation repair it)',
            );
            continue;
          }
          if (!this.pending.has(key)) this.pending.set(key, op);
          break;
        }
      }
      if (count > 1 || this.pending.size)
        this.logger.info(
          { written: count - this.pending.size, left: this.pending.size },
          'buffered job operations written to Redis',
        );
    })().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** Resolves when no flush is running. */
  async idle(): Promise<void> {
    await this.flushing;
  }
}
