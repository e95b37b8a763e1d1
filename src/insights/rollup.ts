/**
 * @module insights/rollup
 * Insights from a daily rollup (ARCHITECTURE.md, "Insights (amended)"): per UTC filing day, stored dimension and key,
 * the requests' exact counts split by the DDSketch bucket of their time to decision (`sketch.ts`). An answer sums the
 * rollup's whole days of the window and reads the rest live (the window's partial first and last days, and every day
 * from the rollup's `through` on: today at least), the same grouped counts computed from the requests; this module
 * plans that read and turns its rows into {@link InsightsCounts}, once for both stores.
 *
 * @remarks A dimension is stored when it is a column (or JSON field) of the request: adding one is an entry in
 * {@link ROLLUP_DIMENSIONS} and its key's SQL in each store's `KEYS`; the rollup rebuilds itself when its list
 * changes. `group` is summed from `person` (the directory in force decides who is in which group), and `day` from
 * `all`, the rows of every request keyed by nothing.
 */
import { sketchPercentile } from './sketch.js';
import type { InsightsCounts, InsightsDay, InsightsDimension, InsightsGroupCounts, InsightsQuery } from './types.js';
import {
  ALL_DIMENSION,
  ROLLUP_DIMS_TAG,
  type RefreshRange,
  type RollupRead,
  type RollupRow,
  type RollupState,
} from './rollup-types.js';

export * from './rollup-types.js';

const DAY_MS = 86_400_000;
/** The UTC day of `at`, `YYYY-MM-DD`. */
export const dayOf = (at: Date | number): string => new Date(at).toISOString().slice(0, 10);
/** Midnight (UTC) starting `day`. */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/** The stored dimension `by` is read from. */
export function storedDimension(by: InsightsDimension): RollupRead['dim'] {
  if (by === 'group') return 'person';
  if (by === 'day') return ALL_DIMENSION;
  return by;
}

/** Whether `state` can answer at all: built, and with today's list of dimensions. */
export const rollupUsable = (state: RollupState | null): state is RollupState =>
  state !== null && state.dims === ROLLUP_DIMS_TAG;

/** The days a refresh at `now` recomputes after `state` (at least from `from` when given). */
export function refreshRange(state: RollupState | null, now: number, from?: string): RefreshRange {
  const through = dayOf(now);
  if (!rollupUsable(state)) return { from: null, through };
  let start = state.openFrom < state.through ? state.openFrom : state.through;
  if (from !== undefined && from < start) start = from;
  return { from: start, through };
}

/** The read answering `query` from a rollup in `state`: its whole days before `through`, the rest live. */
export function readPlan(query: InsightsQuery, state: RollupState): RollupRead {
  const dim = storedDimension(query.by);
  const firstWhole = dayOf(Math.ceil(query.since.getTime() / DAY_MS) * DAY_MS);
  const lastWhole = dayOf(Math.floor(query.until.getTime() / DAY_MS) * DAY_MS);
  const to = lastWhole < state.through ? lastWhole : state.through;
  if (firstWhole >= to) return { dim, rollup: null, live: [{ since: query.since, until: query.until }] };
  const live = [
    { since: query.since, until: dayStart(firstWhole) },
    { since: dayStart(to), until: query.until },
  ].filter((r) => r.since.getTime() < r.until.getTime());
  return { dim, rollup: { from: firstWhole, to }, live };
}

type Tally = Omit<InsightsGroupCounts, 'key' | 'decisionMs'> & { cancelled: number; buckets: Map<number, number> };

const emptyTally = (): Tally => ({
  requests: 0,
  approved: 0,
  denied: 0,
  expired: 0,
  cancelled: 0,
  edited: 0,
  humanApprovals: 0,
  fast: 0,
  buckets: new Map(),
});

function add(tally: Tally, row: RollupRow): void {
  tally.requests += Number(row.requests);
  tally.approved += Number(row.approved);
  tally.denied += Number(row.denied);
  tally.expired += Number(row.expired);
  tally.cancelled += Number(row.cancelled);
  tally.edited += Number(row.edited);
  tally.humanApprovals += Number(row.humanApprovals);
  tally.fast += Number(row.fast);
  if (row.bucket !== null) tally.buckets.set(row.bucket, (tally.buckets.get(row.bucket) ?? 0) + Number(row.requests));
}

const byKey = (a: string | null, b: string | null) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0);

/** The counts `query` answers from `rows` (the rollup's and the live ones, for its dimension and `all`). */
export function countsFromRows(query: InsightsQuery, rows: readonly RollupRow[]): InsightsCounts {
  const dim = storedDimension(query.by);
  const days = new Map<string, Tally>();
  const groups = new Map<string | null, Tally>();
  const members = new Map<string, string[]>();
  for (const [person, group] of query.groups ?? []) members.set(person, [...(members.get(person) ?? []), group]);
  const tally = (map: Map<string | null, Tally>, key: string | null) => {
    let t = map.get(key);
    if (!t) map.set(key, (t = emptyTally()));
    return t;
  };
  for (const row of rows) {
    if (row.dim === ALL_DIMENSION) add(tally(days as Map<string | null, Tally>, row.day), row);
    if (row.dim !== dim) continue;
    const keys =
      query.by === 'group'
        ? row.key === null
          ? []
          : (members.get(row.key) ?? [])
        : [dim === ALL_DIMENSION ? row.day : row.key];
    for (const key of keys) add(tally(groups, key), row);
  }
  const grouped = [...groups].map(([key, { buckets, cancelled: _, ...counts }]) => ({
    key,
    ...counts,
    decisionMs: {
      p50: sketchPercentile(buckets, 50),
      p90: sketchPercentile(buckets, 90),
      p99: sketchPercentile(buckets, 99),
    },
  }));
  grouped.sort((a, b) => b.requests - a.requests || byKey(a.key, b.key));
  const series: InsightsDay[] = [...days]
    .map(([day, t]) => ({
      day: day!,
      requests: t.requests,
      approved: t.approved,
      denied: t.denied,
      expired: t.expired,
      cancelled: t.cancelled,
    }))
    .sort((a, b) => byKey(a.day, b.day));
  return { groups: grouped.slice(0, query.limit), days: series };
}
