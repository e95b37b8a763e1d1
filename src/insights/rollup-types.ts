/**
 * @module insights/rollup-types
 * The daily rollup's shapes (`rollup.ts` plans and sums them; each store reads and writes them in its SQL), apart so
 * the insights store contract (`types.ts`) can name them without importing the planner.
 */

/** The dimensions the rollup stores, each under its own `dim`; plus {@link ALL_DIMENSION}. */
export const ROLLUP_DIMENSIONS = [
  'tool',
  'agent',
  'agent_kind',
  'repo',
  'person',
  'approver',
  'channel',
  'risk',
] as const;
/** One stored dimension. */
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];
/** The rows of every request, keyed by nothing: the totals, the daily series and `by=day`. */
export const ALL_DIMENSION = 'all';

/** The stored dimensions' list as the state row keeps it (a rollup holding another list is rebuilt). */
export const ROLLUP_DIMS_TAG = [...ROLLUP_DIMENSIONS, ALL_DIMENSION].join(',');

/** A rollup row, or a live row computed the same way; summed rows have `day` null except for {@link ALL_DIMENSION}. */
export interface RollupRow {
  day: string | null;
  dim: string;
  key: string | null;
  /** The time-to-decision bucket (`sketch.ts`); null for the requests without one. */
  bucket: number | null;
  requests: number;
  approved: number;
  denied: number;
  expired: number;
  cancelled: number;
  edited: number;
  humanApprovals: number;
  fast: number;
}

/** The rollup's state row. */
export interface RollupState {
  refreshedAt: Date;
  /** The first day (`YYYY-MM-DD`, UTC) the rollup does not hold: the refresh's today. */
  through: string;
  /** The oldest day a request pending at the refresh was filed on (else `through`): the next refresh starts there. */
  openFrom: string;
  /** {@link ROLLUP_DIMS_TAG} when it was built. */
  dims: string;
}

/** What a store reads for an answer: the rollup's whole days `[from, to)`, and the requests filed in each live range. */
export interface RollupRead {
  dim: RollupDimension | typeof ALL_DIMENSION;
  rollup: { from: string; to: string } | null;
  live: { since: Date; until: Date }[];
}

/** The days a refresh recomputes: `[from, through)`, `from` null for every day (a rebuild). */
export interface RefreshRange {
  from: string | null;
  through: string;
}
