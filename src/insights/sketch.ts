/**
 * @module insights/sketch
 * Percentiles from a mergeable relative-error sketch: DDSketch's logarithmic buckets (Masson, Rim and Lee, "DDSketch:
 * a fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019). A time of `ms` > 0 falls in
 * bucket ⌈log_γ ms⌉ with γ = (1 + α) / (1 − α); the bucket answers 2γ^i / (γ + 1), within α of every value in it.
 * Buckets are integers the stores compute in SQL (`bucketSql`) and add up across days and keys, so a window's
 * percentile is read from the sum of its days' counts: nearest rank (the bucket holding rank ⌈p·n⌉), within α of the
 * exact nearest-rank value.
 *
 * @remarks The sketch is these few lines rather than `@datadog/sketches-js`: the buckets must be computed where the
 * rows are (a GROUP BY in SQLite and PostgreSQL, no row read into JavaScript), and the library's value is its
 * in-memory stores and protobuf encoding, which the rollup's plain integer columns replace.
 */

/** The percentiles' relative error α (contract: ≤ 0.01). */
export const PERCENTILE_RELATIVE_ERROR = 0.01;

const GAMMA = (1 + PERCENTILE_RELATIVE_ERROR) / (1 - PERCENTILE_RELATIVE_ERROR);
/** ln γ, written into the stores' SQL. */
export const LN_GAMMA = Math.log(GAMMA);
/** The bucket of a time under 1 ms (0, or a clock step backwards): it answers 0. */
export const ZERO_BUCKET = -1;

/** The SQL of `ms`'s bucket (null for null), the same on SQLite (math functions) and PostgreSQL. */
export function bucketSql(ms: string): string {
  return `CASE WHEN ${ms} IS NULL THEN NULL WHEN ${ms} < 1 THEN ${ZERO_BUCKET} ELSE CAST(ceil(ln(${ms}) / ${LN_GAMMA}) AS INTEGER) END`;
}

/** The bucket of `ms`, as {@link bucketSql} computes it. */
export function bucketOf(ms: number): number {
  return ms < 1 ? ZERO_BUCKET : Math.ceil(Math.log(ms) / LN_GAMMA);
}

/** The value bucket `i` answers: within α of every time in it. */
export function bucketValue(i: number): number {
  return i === ZERO_BUCKET ? 0 : (2 * GAMMA ** i) / (GAMMA + 1);
}

/**
 * The nearest-rank `percent` percentile (50, 90, 99) of `counts` (bucket → how many times fell in it), or null when
 * empty. The rank is ⌈percent·n / 100⌉ in integers, as the exact SQL computes it.
 */
export function sketchPercentile(counts: ReadonlyMap<number, number>, percent: number): number | null {
  let n = 0;
  for (const c of counts.values()) n += c;
  if (n === 0) return null;
  const rank = Math.ceil((n * percent) / 100);
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= rank) return bucketValue(bucket);
  }
  return null;
}
