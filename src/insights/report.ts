/**
 * @module insights/report
 * The insights answer as the API gives it (contract): shares from the stores' counts, totals and a daily series with
 * every day of the window (a day without requests is a row of zeros, so a chart's x axis is the calendar).
 */
import type { DecisionPercentiles, InsightsCounts, InsightsDay, InsightsGroupCounts, InsightsQuery } from './types.js';

/** A grouped row as both stores' SQL returns it (column names are the aliases in their SQL): the percentiles flat. */
export type InsightsGroupRow = Omit<InsightsGroupCounts, 'decisionMs'> & DecisionPercentiles;

/** A store's grouped row as {@link InsightsGroupCounts}. */
export function groupCounts(row: InsightsGroupRow): InsightsGroupCounts {
  const { p50, p90, p99, ...counts } = row;
  return { ...counts, decisionMs: { p50, p90, p99 } };
}

/** One row of `GET /v1/insights` (contract; `expired_rate` added beside it). */
export interface InsightsRowJson {
  key: string | null;
  requests: number;
  approved: number;
  denied: number;
  expired: number;
  /** Approved among the decided (approved + denied); null when none was decided. */
  approval_rate: number | null;
  /** Approvals with edited arguments among the approvals; null without approvals. */
  edited_rate: number | null;
  /** Expired among the requests. */
  expired_rate: number;
  decision_ms: { p50: number | null; p90: number | null; p99: number | null };
  /** `by=person|approver` only: approvals made within 3 s of delivery among the person's approvals (null otherwise, or without any). */
  fast_approvals: number | null;
}

/** `GET /v1/insights`'s body (contract). */
export interface InsightsJson {
  since: string;
  until: string;
  by: string;
  totals: { requests: number; approved: number; denied: number; expired: number; cancelled: number };
  /** When the rollup the answer's whole days came from was refreshed (null: every row read live). */
  as_of: string | null;
  /** The percentiles' relative error (0: exact nearest rank). */
  percentile_relative_error: number;
  rows: InsightsRowJson[];
  series: { day: string; requests: number; approved: number; denied: number; expired: number }[];
}

const DAY_MS = 86_400_000;

/** `part / whole`, or null when `whole` is 0 (a rate of nothing is unknown, not 0). */
const share = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

/** How the counts were computed: from the rollup refreshed at `asOf` (percentiles within `relativeError`), or exactly. */
export interface InsightsProvenance {
  asOf: Date | null;
  relativeError: number;
}

/** The API's answer for `query` from the store's `counts`. */
export function insightsReport(
  query: InsightsQuery,
  counts: InsightsCounts,
  provenance: InsightsProvenance = { asOf: null, relativeError: 0 },
): InsightsJson {
  const totals = { requests: 0, approved: 0, denied: 0, expired: 0, cancelled: 0 };
  for (const d of counts.days)
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += Number(d[k]);
  return {
    since: query.since.toISOString(),
    until: query.until.toISOString(),
    by: query.by,
    as_of: provenance.asOf?.toISOString() ?? null,
    percentile_relative_error: provenance.relativeError,
    totals,
    rows: counts.groups.map((g) => ({
      key: g.key,
      requests: g.requests,
      approved: g.approved,
      denied: g.denied,
      expired: g.expired,
      approval_rate: share(g.approved, g.approved + g.denied),
      edited_rate: share(g.edited, g.approved),
      expired_rate: share(g.expired, g.requests) ?? 0,
      decision_ms: g.decisionMs,
      fast_approvals: query.by === 'person' || query.by === 'approver' ? share(g.fast, g.humanApprovals) : null,
    })),
    series: everyDay(query, counts.days),
  };
}

/** The window's days, oldest first, each with its counts (zeros for a day without requests). */
function everyDay(query: InsightsQuery, days: readonly InsightsDay[]): InsightsJson['series'] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const series: InsightsJson['series'] = [];
  const last = Math.floor((query.until.getTime() - 1) / DAY_MS);
  for (let day = Math.floor(query.since.getTime() / DAY_MS); day <= last; day++) {
    const name = new Date(day * DAY_MS).toISOString().slice(0, 10);
    const d = byDay.get(name);
    series.push({
      day: name,
      requests: d?.requests ?? 0,
      approved: d?.approved ?? 0,
      denied: d?.denied ?? 0,
      expired: d?.expired ?? 0,
    });
  }
  return series;
}
