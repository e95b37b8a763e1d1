/**
 * @module history/retention
 * Configured retention (`TOLLGATE_RETENTION_DAYS`): the running gateway deletes requests decided more than N days ago,
 * in the background, with the same code as `tollgate prune --before DATE` ({@link prune}): short batches with a pause
 * between them, a signed checkpoint that keeps `audit verify` working, pending requests never.
 *
 * It runs a minute after start (a gateway redeployed more often than hourly still prunes) and then every hour. One
 * replica prunes at a time: each run holds a lock (`EventLog.exclusive`, a session advisory lock on PostgreSQL), and a
 * replica that finds it taken skips that run.
 *
 * @remarks On SQLite the prune shares the gateway's connection. That is safe because a batch never waits on anything
 * outside the process (its reads and writes are synchronous, and the signing key is read before the batch): the
 * whole transaction runs inside one turn of the event loop, so no other code writes in the middle of it.
 */
import type { Logger } from 'pino';
import type { Clock, ClockTimer } from '../utils/clock.js';
import { describeError } from '../api/errors.js';
import { prune, type PruneReport, type PruneStore } from './prune.js';

const DAY_MS = 86_400_000;

/** What a {@link Retention} needs. */
export interface RetentionDeps {
  /** The database the prune works on (`requests/<dialect>/prune-store.ts`). */
  store: PruneStore;
  /** Runs `fn` unless another replica runs it now (then resolves false): `EventLog.exclusive('retention', …)`. */
  exclusive(fn: () => Promise<void>): Promise<boolean>;
  /**
   * A signer for checkpoints, ready to sign without waiting (the key read already): called inside a batch's
   * transaction, which must not give up the event loop (see the module remarks).
   */
  signer(): Promise<(claims: { event_id: number; hash: string; at: string }) => string>;
  clock: Clock;
  logger: Logger;
}

/** Options of {@link Retention}. */
export interface RetentionOptions {
  /** Requests decided more than this many days ago go. */
  days: number;
  /** Between runs (default an hour). */
  everyMs?: number;
  /** From start to the first run (default a minute). */
  firstAfterMs?: number;
  /** Requests per transaction (default 200: a short transaction, so the gateway's writes wait little). */
  batchSize?: number;
}

/** The background job of configured retention. */
export class Retention {
  private timer: ClockTimer | null = null;
  private running: Promise<PruneReport | null> | null = null;
  private stopped = false;
  /** The latest run: when (this clock) and its report, null when another replica held the lock. */
  last: { at: Date; report: PruneReport | null } | null = null;

  constructor(
    private readonly deps: RetentionDeps,
    private readonly options: RetentionOptions,
  ) {}

  /** Arms the first run. */
  start(): void {
    this.stopped = false;
    this.arm(this.options.firstAfterMs ?? 60_000);
  }

  /** Cancels the next run and waits for one in progress (it stops after its current batch). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /**
   * Prunes now: requests decided before now minus the retention. Resolves with the report, or null when another
   * replica holds the lock (or a run of this one is in progress: it is that run's report).
   */
  runNow(): Promise<PruneReport | null> {
    return (this.running ??= this.run().finally(() => (this.running = null)));
  }

  /** Resolves once no run is in progress (a test's view of a run its clock started). */
  async whenIdle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.runNow()
        .catch((error: unknown) =>
          this.deps.logger.error(
            { err: describeError(error) },
            'retention: prune failed; it runs again at the next interval',
          ),
        )
        .finally(() => this.arm(this.options.everyMs ?? 3_600_000));
    }, ms);
  }

  private async run(): Promise<PruneReport | null> {
    const now = new Date(this.deps.clock.now());
    const before = new Date(now.getTime() - this.options.days * DAY_MS);
    let report: PruneReport | null = null;
    const sign = await this.deps.signer();
    const ran = await this.deps.exclusive(async () => {
      report = await prune(this.deps.store, {
        before,
        now,
        batchSize: this.options.batchSize ?? 200,
        sign: async (claims) => sign(claims),
        // Between batches the gateway serves what arrived meanwhile; a stop ends the run after the current batch.
        pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
        shouldStop: () => this.stopped,
      });
    });
    const done = ran ? (report as PruneReport | null) : null;
    this.last = { at: now, report: done };
    if (!ran) return null;
    if (done && done.requests > 0) {
      this.deps.logger.info(
        {
          requests: done.requests,
          events: done.events,
          batches: done.batches,
          before: before.toISOString(),
          checkpoint: done.checkpoint?.eventId,
        },
        'retention: pruned requests decided before the cut-off',
      );
    }
    return done;
  }
}
