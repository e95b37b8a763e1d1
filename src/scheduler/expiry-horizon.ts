/**
 * @module scheduler/expiry-horizon
 * Which pending requests hold a timer in this process: those due within the horizon (five minutes), read in
 * `expires_at` order by the `(status, expires_at)` index after a start, those this process files due within it, and
 * those with a follow-up before their expiry. A gateway restarted on a million pending rows arms the few due soon, not
 * a million, and one filing 100,000 for an hour holds no timer for them yet; while rows wait beyond the horizon, a
 * pass every minute arms those that have come within it, so each is armed minutes before its deadline. The due-scan
 * and the sweep still back every timer up.
 */
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock, ClockTimer } from '../utils/clock.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { Scheduler } from './types.js';

/** How far ahead of its deadline a row read from the database is armed. */
export const HORIZON_MS = 5 * 60_000;
/** How often the rows beyond the horizon are looked at again, while there are any. */
export const PASS_EVERY_MS = 60_000;
const PAGE = 1000;

type PendingRow = { id: string; expiresAt: Date };

/** What {@link ExpiryHorizon} needs. */
export interface ExpiryHorizonDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  clock: Clock;
  logger: Logger;
  /** When each row's timer should fire: its first outstanding reminder or escalation step, else its expiry (absent: its expiry). */
  wakes?(rows: readonly PendingRow[]): Promise<Date[]>;
}

/** Arms the expiry timers of pending rows as they come within the horizon. */
export class ExpiryHorizon {
  /** The last row a pass armed: the next pass reads on from it. */
  private after: PendingRow | undefined;
  private timer: ClockTimer | null = null;
  private passing: Promise<number> | null = null;
  /** Until the first {@link rearm} (the gateway's start), nothing is deferred to passes that are not running. */
  private stopped = true;

  constructor(private readonly deps: ExpiryHorizonDeps) {}

  /**
   * Starts over from the earliest pending row (start-up, or a scheduler that lost its timers): arms every row due
   * within the horizon, then, where follow-ups exist, the rows beyond it whose reminder or escalation step comes before
   * their expiry (a row's `expires_at` cannot stand in for those). Returns how many it armed.
   */
  async rearm(): Promise<number> {
    this.stopped = false;
    while (this.passing) await this.passing.catch(() => 0);
    this.after = undefined;
    const armed = await this.pass();
    return armed + (this.deps.wakes ? await this.armFollowUpsBeyond(this.deps.wakes) : 0);
  }

  /**
   * Whether a request this process files can leave its timer to a pass: true when it is due beyond the horizon with no
   * follow-up before its expiry, and then a pass is sure to come (passes read on from the last row armed in expiry
   * order, and a row filed now expires after it). False: arm it now (a follow-up's wake-up is not in expiry order).
   */
  defers(wake: Date, expiresAt: Date): boolean {
    if (
      this.stopped ||
      wake.getTime() < expiresAt.getTime() ||
      expiresAt.getTime() <= this.deps.clock.now() + HORIZON_MS
    )
      return false;
    this.armNextPass();
    return true;
  }

  /** Stops the passes (a walk under way ends at its next page). */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }

  private pass(): Promise<number> {
    const passing = this.armUpTo(this.deps.clock.now() + HORIZON_MS).finally(() => (this.passing = null));
    this.passing = passing;
    return passing;
  }

  /** Arms the rows after the last one armed, up to `until`; arms the next pass while rows wait beyond it. */
  private async armUpTo(until: number): Promise<number> {
    let armed = 0;
    for (;;) {
      const page = await this.deps.store.pending(PAGE, this.after?.expiresAt, this.after?.id);
      const within = page.filter((row) => row.expiresAt.getTime() <= until); // the page is in expiry order: a prefix
      await this.arm(within);
      armed += within.length;
      this.after = within.at(-1) ?? this.after;
      if (within.length < page.length) this.armNextPass();
      if (within.length < page.length || page.length < PAGE || this.stopped) return armed;
      // SQLite answers synchronously: a turn of the event loop between pages keeps the gateway answering meanwhile.
      await setImmediate();
    }
  }

  /** Reads every row beyond the horizon once and arms those whose follow-up wakes them before their expiry. */
  private async armFollowUpsBeyond(wakes: NonNullable<ExpiryHorizonDeps['wakes']>): Promise<number> {
    let armed = 0;
    for (let after = this.after; !this.stopped;) {
      const page = await this.deps.store.pendingPlans(PAGE, after?.expiresAt, after?.id);
      // Only rows filed with a follow-up plan can wake before their expiry: the others' events are not read at all.
      const rows = page.filter((row) => row.planned);
      const times = rows.length ? await wakes(rows) : [];
      const early = rows.flatMap((row, i) =>
        times[i]!.getTime() < row.expiresAt.getTime() ? [{ row, wake: times[i]! }] : [],
      );
      await Promise.all(early.map(({ row, wake }) => this.deps.scheduler.scheduleExpiry(row.id, wake, row.expiresAt)));
      armed += early.length;
      if (page.length < PAGE) break;
      after = page[page.length - 1];
      await setImmediate();
    }
    return armed;
  }

  private async arm(rows: readonly PendingRow[]): Promise<void> {
    if (!rows.length) return;
    const times = this.deps.wakes ? await this.deps.wakes(rows) : rows.map((row) => row.expiresAt);
    await Promise.all(rows.map((row, i) => this.deps.scheduler.scheduleExpiry(row.id, times[i]!, row.expiresAt)));
  }

  private armNextPass(): void {
    if (this.stopped || this.timer) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      if (this.stopped || this.passing) return;
      this.pass().catch((error: unknown) => {
        this.deps.logger.error(
          { err: error },
          'arming the expiries coming within the horizon failed; trying again at the next pass',
        );
        this.armNextPass();
      });
    }, PASS_EVERY_MS);
  }
}
