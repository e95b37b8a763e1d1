/**
 * @module lifecycle/expiry-scan
 * The due-scan: expires every pending request whose time has come, in batches of one transaction each (10 000
 * requests falling due in the same second cost a few writes, not 10 000). On PostgreSQL several replicas scan at once
 * without meeting (`FOR NO KEY UPDATE SKIP LOCKED`); within a process there is one scan at a time.
 */
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';

/**
 * Rows in a scan's first transaction. A scan that finds it full doubles it each time, up to the store's
 * `expiryBatchLimit` (PostgreSQL: a statement's fixed cost dominates); on SQLite it stays at this.
 */
const BATCH = 500;
/** Batches whose fan-out may still be running while the next ones are stamped. */
const FANNING_BATCHES = 8;
/** Requests of one batch fanned out at once. */
const FAN_OUT_SLICE = 16;

/** Stamped ids remembered for their timers; a timer firing after a clear just reads its row. */
const RECENT_LIMIT = 100_000;

/** What the scan needs: the rows, the time, and the fan-out of one expired request (waiters, cards, callbacks). */
export interface ExpiryScanDeps {
  store: ConfirmationStore;
  clock: Clock;
  logger: Logger;
  fanOut(request: ConfirmationRequest): Promise<void>;
}

/** One due-scan at a time; callers during a scan share the one scan that follows it. */
export class ExpiryScan {
  private running: Promise<number> | null = null;
  private next: Promise<number> | null = null;
  private readonly fanning = new Set<Promise<void>>();
  /** Ids the recent scans stamped, so each request's own timer can skip reading its row (bounded: cleared when large). */
  private readonly recent = new Set<string>();
  /** Set by {@link ExpiryScan.expectCatchUp} until the catch-up has run. */
  private awaitedCatchUp: Promise<void> | null = null;
  private releaseCatchUp: () => void = () => undefined;

  constructor(private readonly deps: ExpiryScanDeps) {}

  /**
   * Scans now, or — while a scan runs — once more after it (for rows that fell due meanwhile). The timers of one
   * second all call this; they share two scans instead of running one each. Resolves with how many expired, once
   * they are stamped `expired` in the database; their fan-out goes on (see {@link ExpiryScan.settled}).
   */
  run(): Promise<number> {
    if (this.awaitedCatchUp) return this.awaitedCatchUp.then(() => this.run());
    if (!this.running) {
      this.running = this.scan().finally(() => (this.running = null));
      return this.running;
    }
    const again = () => {
      this.next = null;
      return this.run();
    };
    this.next ??= this.running.then(again, again);
    return this.next;
  }

  /**
   * The start-up's scan, before the gateway listens: like {@link ExpiryScan.run}, but in batches of the store's
   * `catchUpBatchLimit` when it has one (nothing waits on the event loop yet, so a backlog of overdue rows goes in a
   * few long transactions). Waits for a scan already running; callers of `run()` meanwhile share the one after it.
   */
  async catchUp(): Promise<number> {
    const first = this.deps.store.catchUpBatchLimit ?? BATCH;
    while (this.running) await this.running.catch(() => 0);
    this.running = this.scan(first).finally(() => (this.running = null));
    try {
      return await this.running;
    } finally {
      this.releaseCatchUp();
    }
  }

  /**
   * Makes the scans asked for from now on wait for the next {@link ExpiryScan.catchUp} and run after it: a scheduler
   * started before the catch-up runs a due-scan at once (BullMQ's first job), which would otherwise take the backlog
   * first, 500 rows at a time. Returns the release, for a start that fails before its catch-up: its scans run then.
   */
  expectCatchUp(): () => void {
    this.awaitedCatchUp ??= new Promise<void>(
      (resolve) =>
        (this.releaseCatchUp = () => {
          this.awaitedCatchUp = null;
          resolve();
        }),
    );
    return () => this.releaseCatchUp();
  }

  /** Whether a recent scan expired `requestId`. */
  expiredRecently(requestId: string): boolean {
    return this.recent.has(requestId);
  }

  /** Resolves when the fan-out of every request expired so far has finished. */
  async settled(): Promise<void> {
    while (this.fanning.size) await Promise.all([...this.fanning]);
  }

  /**
   * Rows are stamped `expired` batch after batch without waiting for the fan-out of the batches before, so the last
   * of 10 000 is not late by the fan-out of the first 9 500, and the next scan need not wait for it either; a few
   * batches fan out at once at most, which bounds memory when a restart finds 100 000 overdue rows. A first batch that
   * comes back full means a backlog: a store that can run statements side by side (`expiryLanes`) drains it in as
   * many lanes, each claiming rows the others do not hold.
   */
  private async scan(firstBatch = BATCH): Promise<number> {
    if (this.recent.size > RECENT_LIMIT) this.recent.clear();
    const first = await this.expireBatch(firstBatch);
    if (first < firstBatch) return first;
    const limit = Math.max(firstBatch, this.deps.store.expiryBatchLimit ?? BATCH);
    const lanes = Array.from({ length: Math.max(1, this.deps.store.expiryLanes ?? 1) }, () =>
      this.drain(Math.min(firstBatch * 2, limit), limit),
    );
    return first + (await Promise.all(lanes)).reduce((sum, n) => sum + n, 0);
  }

  /** Expires batch after batch, doubling while full up to `limit`, until one comes back short. */
  private async drain(from: number, limit: number): Promise<number> {
    let count = 0;
    for (let batch = from; ; batch = Math.min(batch * 2, limit)) {
      const expired = await this.expireBatch(batch);
      count += expired;
      if (expired < batch) return count;
    }
  }

  /** One `expireDue` call: stamps up to `limit` rows, starts their fan-out, and resolves with how many it stamped. */
  private async expireBatch(limit: number): Promise<number> {
    const expired = await this.deps.store.expireDue(new Date(this.deps.clock.now()), limit);
    for (const request of expired) this.recent.add(request.id);
    if (expired.length) this.fanOut(expired);
    while (this.fanning.size >= FANNING_BATCHES) await Promise.race(this.fanning);
    return expired.length;
  }

  /**
   * The rows are expired already: a failed fan-out is logged (waiters re-read at their timeout; the sweep catches up).
   * A batch fans out a slice at a time, so 10 000 expiries never queue thousands of reads on a database pool in front
   * of the next scan, and timers and scans get the event loop between slices.
   */
  private fanOut(requests: ConfirmationRequest[]): void {
    const done = (async () => {
      for (let i = 0; i < requests.length; i += FAN_OUT_SLICE) {
        const outcomes = await Promise.allSettled(
          requests.slice(i, i + FAN_OUT_SLICE).map((request) => this.deps.fanOut(request)),
        );
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected')
            this.deps.logger.error({ err: outcome.reason }, 'fan-out after expiry failed');
        }
      }
    })();
    this.fanning.add(done);
    void done.then(() => this.fanning.delete(done));
  }
}
