/**
 * @module bench/stats
 * Percentiles and rounding for the benchmark figures.
 */

/** p50 / p99 (and friends) of a sample, in the sample's unit. */
export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

/** Nearest-rank percentile `p` (0..100) of an ascending-sorted array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Summarizes `values` (not modified) as p50, p99, max and count, rounded to 0.01. */
export function summarize(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
    n: sorted.length,
  };
}

/** Rounds to `digits` decimals (2 by default). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The median of `values` (not modified): the lower of the two middle values for an even count; NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : Number.NaN;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Merges the figures of several runs into one tree of medians: every number is the median of that figure over the
 * runs that measured it (a null counts as a miss and sorts last); other values come from the first run. With one run
 * it returns that run. The floor is a figure like the others, so each median sits next to the floor's median.
 */
export function medianOfRuns<T>(runs: readonly T[]): T {
  if (runs.length <= 1) return runs[0]!;
  const merge = (values: unknown[]): unknown => {
    const present = values.filter((v) => v !== undefined);
    const first = present[0];
    if (present.every((v) => typeof v === 'number' || v === null) && present.some((v) => typeof v === 'number')) {
      const sorted = present.map((v) => (v === null ? Number.POSITIVE_INFINITY : (v as number))).sort((a, b) => a - b);
      const middle = sorted[Math.floor((sorted.length - 1) / 2)]!;
      return Number.isFinite(middle) ? middle : null;
    }
    if (first && typeof first === 'object' && !Array.isArray(first)) {
      const keys = new Set(present.flatMap((v) => (v && typeof v === 'object' ? Object.keys(v) : [])));
      return Object.fromEntries(
        [...keys].map((k) => [k, merge(present.map((v) => (v as Record<string, unknown> | null)?.[k]))]),
      );
    }
    return first;
  };
  return merge([...runs]) as T;
}
