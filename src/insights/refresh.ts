/**
 * @module insights/refresh
 * Keeps the insights rollup (`rollup.ts`) current: on demand when an answer finds none (or one built for other
 * dimensions), and from the gateway's periodic sweep when the UTC day has turned or the last refresh is older than
 * {@link ROLLUP_REFRESH_EVERY_MS}. One refresh at a time per process (callers share the one in flight; across replicas
 * the store serializes them). Nothing here runs on a create or a decision.
 */
import { dayOf, refreshRange, rollupUsable, type RollupState } from './rollup.js';
import type { InsightsStore } from './types.js';

/** How old a refresh may grow before the sweep refreshes again (late verdicts on past days wait at most this long). */
export const ROLLUP_REFRESH_EVERY_MS = 10 * 60_000;

/** The rollup's refresher. */
export class InsightsRollup {
  private inFlight: Promise<RollupState> | null = null;

  constructor(
    private readonly store: InsightsStore,
    private readonly now: () => number,
    private readonly everyMs = ROLLUP_REFRESH_EVERY_MS,
  ) {}

  /** The state answers read from: refreshed first when there is no usable rollup. */
  async current(): Promise<RollupState> {
    const state = await this.store.rollupState();
    return rollupUsable(state) ? state : this.refresh();
  }

  /**
   * Refreshes now: the days since the last refresh's open day (every day, without a usable rollup), at least from
   * `from` when given; joins a refresh already running.
   */
  refresh(from?: string): Promise<RollupState> {
    this.inFlight ??= (async () => {
      const now = this.now();
      return this.store.refreshRollup(refreshRange(await this.store.rollupState(), now, from), new Date(now));
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** The periodic job: refreshes when the day has turned since, or the last refresh is older than its period. */
  async refreshWhenDue(): Promise<RollupState | null> {
    const state = await this.store.rollupState();
    const now = this.now();
    if (rollupUsable(state) && state.through === dayOf(now) && now - state.refreshedAt.getTime() < this.everyMs)
      return null;
    return this.refresh();
  }
}
