/**
 * @module stores/postgres/insights
 * {@link InsightsStore} on PostgreSQL: the same two aggregates as SQLite's (`../sqlite/insights.ts`), in one pass
 * each over the requests filed in the window. Percentiles are `percentile_disc` (nearest rank, the value at rank
 * ⌈p·n⌉), the same value SQLite's window functions pick; keys sort byte-wise (`COLLATE "C"`) as SQLite's do.
 */
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { postgresReplay } from './replay-rows.js';
import { SUGGESTION_CANDIDATES_SQL } from './suggestion-candidates.js';
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
import { refreshOn, rollupQueries, STATE_SQL } from './insights-rollup.js';
import type { RollupRead, RollupRow, RollupState } from '../../insights/rollup-types.js';
import { REQUEST_STATUSES } from '../../requests/types.js';

/** The grouped statement for `by` ($1 since, $2 until, $3 limit; for groups $4 people and $5 their groups). */
function groupedSql(by: InsightsDimension): string {
  const join =
    by === 'group' ? 'JOIN unnest($4::text[], $5::text[]) AS g(person, grp) ON g.person = r.responded_by_person' : '';
  const rank = (p: number) => `percentile_disc(${p}) WITHIN GROUP (ORDER BY ms)`;
  return `SELECT key, count(*)::int AS requests,
  count(*) FILTER (WHERE status = 'approved')::int AS approved,
  count(*) FILTER (WHERE status = 'denied')::int AS denied,
  count(*) FILTER (WHERE status = 'expired')::int AS expired,
  count(*) FILTER (WHERE status = 'approved' AND edited)::int AS edited,
  count(*) FILTER (WHERE status = 'approved' AND ms IS NOT NULL)::int AS "humanApprovals",
  count(*) FILTER (WHERE status = 'approved' AND ms <= ${FAST_APPROVAL_MS})::int AS fast,
  ${rank(0.5)} AS p50, ${rank(0.9)} AS p90, ${rank(0.99)} AS p99
FROM (
  SELECT ${KEYS[by]} AS key, r.status, r.approved_args IS NOT NULL AS edited, ${DECISION_MS} AS ms
  FROM confirmation_requests r ${join}
  WHERE r.created_at >= $1 AND r.created_at < $2
  -- A fence: without it the planner inlines ms into each aggregate, running the deliveries' subquery once per use.
  OFFSET 0
) w
GROUP BY key ORDER BY requests DESC, key IS NULL, key COLLATE "C" LIMIT $3`;
}

/** Requests per UTC day by outcome; naming every status lets the status indexes answer (see SQLite's). */
const DAYS_SQL = `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS requests,
  count(*) FILTER (WHERE status = 'approved')::int AS approved,
  count(*) FILTER (WHERE status = 'denied')::int AS denied,
  count(*) FILTER (WHERE status = 'expired')::int AS expired,
  count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
FROM confirmation_requests
WHERE status IN (${REQUEST_STATUSES.map((s) => `'${s}'`).join(', ')}) AND created_at >= $1 AND created_at < $2
GROUP BY day ORDER BY day`;

/** The PostgreSQL implementation of {@link InsightsStore}. */
export class PostgresInsights implements InsightsStore {
  constructor(private readonly open: OpenPostgres) {}

  /** Counts the window's requests by `query.by` and by day (see the module comment). */
  async insights(query: InsightsQuery): Promise<InsightsCounts> {
    const window = [query.since, query.until];
    const pairs = query.groups ?? [];
    const values =
      query.by === 'group'
        ? [...window, query.limit, pairs.map((p) => p[0]), pairs.map((p) => p[1])]
        : [...window, query.limit];
    return withPostgresErrors(async () => {
      const [grouped, days] = await Promise.all([
        this.open.pool.query<InsightsGroupRow>({ text: groupedSql(query.by), values }),
        this.open.pool.query<InsightsDay>({ text: DAYS_SQL, values: window }),
      ]);
      return { groups: grouped.rows.map(groupCounts), days: days.rows };
    });
  }

  /** The rollup's state row. */
  async rollupState(): Promise<RollupState | null> {
    const { rows } = await withPostgresErrors(() => this.open.pool.query<RollupState>(STATE_SQL));
    return rows[0] ?? null;
  }

  /** Recomputes the rollup's days `[from, through)` (`insights-rollup.ts`). */
  refreshRollup(range: { from: string | null; through: string }, refreshedAt: Date): Promise<RollupState> {
    return withPostgresErrors(async () => {
      const client = await this.open.pool.connect();
      try {
        return await refreshOn(client, range, refreshedAt);
      } finally {
        client.release();
      }
    });
  }

  /** The rollup's and the live rows answering `read`. */
  async rollupRows(read: RollupRead): Promise<RollupRow[]> {
    return withPostgresErrors(async () => {
      const results = await Promise.all(
        rollupQueries(read).map((q) => this.open.pool.query<RollupRow>({ text: q.text, values: q.values })),
      );
      return results.flatMap((r) => r.rows);
    });
  }

  /** The window's repeating calls (`suggestion-candidates.ts`). */
  async suggestionCandidates(query: SuggestionQuery): Promise<SuggestionCandidate[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<SuggestionCandidate>({
        text: SUGGESTION_CANDIDATES_SQL,
        values: [query.since, query.until, query.min],
      }),
    );
    return rows.map((r) => ({ ...r, approvers: [...r.approvers].sort() }));
  }

  /** The window's rows for a policy replay (`replay-rows.ts`). */
  replay(window: { since: Date; until: Date }, pageSize?: number): AsyncIterable<readonly ReplayRow[]> {
    return postgresReplay(this.open, window, pageSize);
  }
}
