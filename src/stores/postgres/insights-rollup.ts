/**
 * @module stores/postgres/insights-rollup
 * The insights rollup on PostgreSQL (`insights/rollup.ts`), the same statements as SQLite's
 * (`../sqlite/insights-rollup.ts`): the grouped rows by day, dimension, key and time bucket, the rollup's sum, and the
 * refresh, one transaction (`INSERT … SELECT`, which blocks no create or decision under MVCC) serialized across
 * replicas by a transaction-scoped advisory lock, so two replicas refreshing at once never write a day twice.
 */
import type { PoolClient } from 'pg';
import { FAST_APPROVAL_MS } from '../../insights/types.js';
import {
  ALL_DIMENSION,
  ROLLUP_DIMENSIONS,
  ROLLUP_DIMS_TAG,
  dayStart,
  type RollupRead,
  type RollupState,
} from '../../insights/rollup.js';
import { bucketSql } from '../../insights/sketch.js';
import { DECISION_MS, KEYS } from './insights-sql.js';

/** The advisory lock of the rollup's refresh (any constant; this one spells "insights"). */
const REFRESH_LOCK = 0x696e7369;

const COUNTS = `count(*)::int AS requests,
  count(*) FILTER (WHERE status = 'approved')::int AS approved,
  count(*) FILTER (WHERE status = 'denied')::int AS denied,
  count(*) FILTER (WHERE status = 'expired')::int AS expired,
  count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled,
  count(*) FILTER (WHERE status = 'approved' AND edited)::int AS edited,
  count(*) FILTER (WHERE status = 'approved' AND ms IS NOT NULL)::int AS "humanApprovals",
  count(*) FILTER (WHERE status = 'approved' AND ms <= ${FAST_APPROVAL_MS})::int AS fast`;

/** The requests filed in `[$1, $2)` grouped as SQLite's `groupedRollupSql` groups them. */
export function groupedRollupSql(dims: readonly string[], byDay: boolean): string {
  const stored = dims.filter((d) => d !== ALL_DIMENSION);
  const keys = stored.map((d, i) => `${KEYS[d as keyof typeof KEYS]} AS k${i}`).join(', ');
  const parts = stored.map(
    (d, i) =>
      `SELECT ${byDay ? 'day' : 'NULL::text'} AS day, '${d}'::text AS dim, k${i} AS key, bucket, ${COUNTS} FROM base GROUP BY ${byDay ? 'day, ' : ''}k${i}, bucket`,
  );
  parts.push(
    `SELECT day, '${ALL_DIMENSION}'::text AS dim, NULL::text AS key, bucket, ${COUNTS} FROM base GROUP BY day, bucket`,
  );
  return `WITH base AS MATERIALIZED (
  SELECT *, ${bucketSql('ms')} AS bucket FROM (
    SELECT to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${keys ? `${keys}, ` : ''}r.status AS status,
      r.approved_args IS NOT NULL AS edited, ${DECISION_MS} AS ms
    FROM confirmation_requests r WHERE r.created_at >= $1 AND r.created_at < $2
    OFFSET 0
  ) w
)
${parts.join('\nUNION ALL\n')}`;
}

/** The rollup's whole days `[$2, $3)` of `$1` (summed over days) and of `all` (by day). */
export const ROLLUP_SUM_SQL = `SELECT CASE WHEN dim = '${ALL_DIMENSION}' THEN day END AS day, dim, key, bucket,
  sum(requests)::int AS requests, sum(approved)::int AS approved, sum(denied)::int AS denied,
  sum(expired)::int AS expired, sum(cancelled)::int AS cancelled, sum(edited)::int AS edited,
  sum(human_approvals)::int AS "humanApprovals", sum(fast)::int AS fast
FROM insights_daily WHERE dim IN ($1, '${ALL_DIMENSION}') AND day >= $2 AND day < $3
GROUP BY CASE WHEN dim = '${ALL_DIMENSION}' THEN day END, dim, key, bucket`;

/** The statements (text and values) answering `read`. */
export function rollupQueries(read: RollupRead): { text: string; values: unknown[] }[] {
  const queries: { text: string; values: unknown[] }[] = [];
  if (read.rollup) queries.push({ text: ROLLUP_SUM_SQL, values: [read.dim, read.rollup.from, read.rollup.to] });
  const live = groupedRollupSql([read.dim], false);
  for (const range of read.live) queries.push({ text: live, values: [range.since, range.until] });
  return queries;
}

/** The state row's SELECT. */
export const STATE_SQL =
  'SELECT refreshed_at AS "refreshedAt", through, open_from AS "openFrom", dims FROM insights_rollup_state WHERE id = 1';

const ALL_DIMS = [...ROLLUP_DIMENSIONS, ALL_DIMENSION];

/** Recomputes `[from, through)` on `client`, in one transaction (see the module comment). */
export async function refreshOn(
  client: PoolClient,
  range: { from: string | null; through: string },
  refreshedAt: Date,
): Promise<RollupState> {
  const through = range.through;
  const until = dayStart(through);
  const day = async (sql: string, values: unknown[]) =>
    ((await client.query<{ day: string | null }>(sql, values)).rows[0]?.day ?? null) || through;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [REFRESH_LOCK]);
    // Read before the rows: a request pending now may change later, so the next refresh starts at its day.
    const pending = await day(
      `SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM confirmation_requests WHERE status = 'pending' AND created_at < $1`,
      [until],
    );
    const oldest = await day(
      `SELECT to_char(min(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM confirmation_requests`,
      [],
    );
    const from = range.from ?? '';
    await client.query('DELETE FROM insights_daily WHERE day >= $1 OR day < $2', [from, oldest]);
    await client.query(
      `INSERT INTO insights_daily (day, dim, key, bucket, requests, approved, denied, expired, cancelled, edited, human_approvals, fast)
${groupedRollupSql(ALL_DIMS, true)}`,
      [from ? dayStart(from) : new Date(0), until],
    );
    const state: RollupState = {
      refreshedAt,
      through,
      openFrom: pending < through ? pending : through,
      dims: ROLLUP_DIMS_TAG,
    };
    await client.query(
      `INSERT INTO insights_rollup_state (id, refreshed_at, through, open_from, dims) VALUES (1, $1, $2, $3, $4)
ON CONFLICT (id) DO UPDATE SET refreshed_at = excluded.refreshed_at, through = excluded.through,
  open_from = excluded.open_from, dims = excluded.dims`,
      [refreshedAt, through, state.openFrom, state.dims],
    );
    await client.query('COMMIT');
    return state;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
