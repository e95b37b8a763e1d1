/**
 * @module stores/sqlite/insights
 * {@link InsightsStore} on SQLite: two aggregate statements over the requests filed in a window, read on a connection
 * of their own on a worker thread (`off-thread-reads.ts`: a quarter of a large history takes seconds, which the
 * gateway's thread must not wait through). The window is searched on `confirmation_requests_created`; each decided
 * row's first delivery is one entry of the deliveries' own index (`confirmation_events_delivered`).
 * Percentiles are nearest-rank (the value at rank ⌈p·n⌉), computed with window functions since SQLite has no
 * `percentile_disc`; PostgreSQL's `percentile_disc` picks the same value.
 */
import type { OpenDatabase } from './database.js';
import { OffThreadReads, type OffThreadRead } from './off-thread-reads.js';
import { sqliteReplay } from './replay-rows.js';
import { suggestionCandidatesRead } from './suggestion-candidates.js';
import {
  FAST_APPROVAL_MS,
  type InsightsCounts,
  type InsightsDay,
  type InsightsQuery,
  type InsightsStore,
  type InsightsDimension,
  type ReplayRow,
  type SuggestionCandidate,
  type SuggestionQuery,
} from '../../insights/types.js';
import { groupCounts, type InsightsGroupRow } from '../../insights/report.js';
import { DECISION_MS, KEYS } from './insights-sql.js';
import { readRollupState, refreshBatch, rollupReads } from './insights-rollup.js';
import type { RollupRead, RollupRow, RollupState } from '../../insights/rollup-types.js';
import { REQUEST_STATUSES } from '../../requests/types.js';

/** The grouped statement for `by`: one pass over the window, one sort for the ranks. */
function groupedSql(by: InsightsDimension): string {
  const join =
    by === 'group' ? "JOIN json_each(@groups) g ON json_extract(g.value, '$[0]') = r.responded_by_person" : '';
  const rank = (p: number) => `MIN(CASE WHEN rn * 100 >= n * ${p} THEN ms END)`;
  return `SELECT key, COUNT(*) AS requests,
  SUM(status = 'approved') AS approved, SUM(status = 'denied') AS denied, SUM(status = 'expired') AS expired,
  SUM(status = 'approved' AND edited) AS edited,
  SUM(status = 'approved' AND ms IS NOT NULL) AS humanApprovals,
  SUM(status = 'approved' AND ms <= ${FAST_APPROVAL_MS}) AS fast,
  ${rank(50)} AS p50, ${rank(90)} AS p90, ${rank(99)} AS p99
FROM (
  SELECT key, status, edited, ms,
    ROW_NUMBER() OVER (PARTITION BY key, ms IS NULL ORDER BY ms) AS rn,
    COUNT(ms) OVER (PARTITION BY key) AS n
  FROM (
    SELECT ${KEYS[by]} AS key, r.status AS status, r.approved_args IS NOT NULL AS edited, ${DECISION_MS} AS ms
    FROM confirmation_requests r ${join}
    WHERE r.created_at >= @since AND r.created_at < @until
  )
)
GROUP BY key ORDER BY requests DESC, key IS NULL, key LIMIT @limit`;
}

/**
 * Requests per UTC day by outcome. Naming every status lets SQLite read the window from the status index alone
 * (`confirmation_requests_status_created`, one range per status): no table row is read.
 */
const DAYS_SQL = `SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS requests,
  SUM(status = 'approved') AS approved, SUM(status = 'denied') AS denied, SUM(status = 'expired') AS expired, SUM(status = 'cancelled') AS cancelled
FROM confirmation_requests
WHERE status IN (${REQUEST_STATUSES.map((s) => `'${s}'`).join(', ')}) AND created_at >= @since AND created_at < @until
GROUP BY day ORDER BY day`;

/** The statements (and their parameters) that answer `query`: the groups, then the days. */
export function insightsReads(query: InsightsQuery): OffThreadRead[] {
  const window = { since: query.since.toISOString(), until: query.until.toISOString() };
  const params = {
    ...window,
    limit: query.limit,
    ...(query.by === 'group' ? { groups: JSON.stringify(query.groups ?? []) } : {}),
  };
  return [
    { sql: groupedSql(query.by), params },
    { sql: DAYS_SQL, params: window },
  ];
}

/** The most live time (summed over the ranges) an answer reads on the gateway's thread: today and a partial day. */
const LIVE_ON_THREAD_MS = 48 * 3_600_000;

/** The SQLite implementation of {@link InsightsStore}. */
export class SqliteInsights implements InsightsStore {
  /** Null for `:memory:`, which no other connection can see: its (small) history is read on the gateway's own. */
  private readonly offThread: OffThreadReads | null;

  constructor(private readonly open: OpenDatabase) {
    this.offThread = open.sqlite.memory ? null : new OffThreadReads(open.sqlite.name);
  }

  /** Counts the window's requests by `query.by` and by day (see the module comment), on a worker thread. */
  async insights(query: InsightsQuery): Promise<InsightsCounts> {
    const reads = insightsReads(query);
    const [groups, days] = await this.all(reads);
    return { groups: (groups as InsightsGroupRow[]).map(groupCounts), days: days as InsightsDay[] };
  }

  /** The rollup's state row. */
  rollupState(): Promise<RollupState | null> {
    return Promise.resolve(readRollupState(this.open.sqlite));
  }

  /** Recomputes the rollup's days `[from, through)` on a worker thread (`insights-rollup.ts`). */
  async refreshRollup(range: { from: string | null; through: string }, refreshedAt: Date): Promise<RollupState> {
    const { read, write, state } = refreshBatch(this.open.sqlite, range, refreshedAt);
    if (this.offThread) {
      await this.offThread.readThenWrite(read, write);
      return state;
    }
    const sqlite = this.open.sqlite;
    const rows = sqlite.prepare(read.sql).all(read.params);
    const insert = sqlite.prepare(write.insert);
    sqlite
      .transaction(() => {
        for (const s of write.before) sqlite.prepare(s.sql).run(s.params);
        for (const row of rows) insert.run(row);
        for (const s of write.after) sqlite.prepare(s.sql).run(s.params);
      })
      .immediate();
    return state;
  }

  /**
   * The rollup's and the live rows answering `read`. On the gateway's thread when the live ranges are short (a partial
   * day and today: the rollup's sum is bounded by days × keys × buckets, not by requests), since a worker thread's
   * start costs ~10 times those statements (measured: ~300 against ~35 ms); on a worker when the rollup is behind.
   */
  async rollupRows(read: RollupRead): Promise<RollupRow[]> {
    const liveMs = read.live.reduce((sum, r) => sum + r.until.getTime() - r.since.getTime(), 0);
    const reads = rollupReads(read);
    if (liveMs > LIVE_ON_THREAD_MS) return (await this.all(reads)).flat() as RollupRow[];
    return reads.flatMap((r) => this.open.sqlite.prepare(r.sql).all(r.params)) as RollupRow[];
  }

  /** The window's repeating calls (`suggestion-candidates.ts`), on a worker thread. */
  async suggestionCandidates(query: SuggestionQuery): Promise<SuggestionCandidate[]> {
    const [rows] = await this.all([suggestionCandidatesRead(query)]);
    return (rows as (Omit<SuggestionCandidate, 'approvers'> & { approvers: string })[]).map((r) => ({
      ...r,
      approvers: (JSON.parse(r.approvers) as string[]).sort(),
    }));
  }

  /** The window's rows for a policy replay (`replay-rows.ts`), on a connection of their own. */
  replay(window: { since: Date; until: Date }, pageSize?: number): AsyncIterable<readonly ReplayRow[]> {
    return sqliteReplay(this.open, window, pageSize);
  }

  private all(reads: OffThreadRead[]): Promise<unknown[][]> {
    return this.offThread
      ? this.offThread.all(reads)
      : Promise.resolve(reads.map((r) => this.open.sqlite.prepare(r.sql).all(r.params)));
  }
}
