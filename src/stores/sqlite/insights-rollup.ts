/**
 * @module stores/sqlite/insights-rollup
 * The insights rollup on SQLite (`insights/rollup.ts`): the statement that groups requests by day, dimension, key and
 * time bucket (the refresh writes its rows; an answer runs it over the live ranges without the day), the one that sums
 * the rollup's days, and the refresh. The refresh reads on a worker thread and writes there too, in one short write
 * transaction of the grouped rows (a few thousand a day), so the gateway's thread and its creates never wait for the
 * long read.
 */
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
import type { OpenDatabase } from './database.js';
import { DECISION_MS, KEYS } from './insights-sql.js';
import type { OffThreadRead, OffThreadWrite } from './off-thread-reads.js';

const COUNTS = `COUNT(*) AS requests,
  COUNT(CASE WHEN status = 'approved' THEN 1 END) AS approved,
  COUNT(CASE WHEN status = 'denied' THEN 1 END) AS denied,
  COUNT(CASE WHEN status = 'expired' THEN 1 END) AS expired,
  COUNT(CASE WHEN status = 'cancelled' THEN 1 END) AS cancelled,
  COUNT(CASE WHEN status = 'approved' AND edited THEN 1 END) AS edited,
  COUNT(CASE WHEN status = 'approved' AND ms IS NOT NULL THEN 1 END) AS humanApprovals,
  COUNT(CASE WHEN status = 'approved' AND ms <= ${FAST_APPROVAL_MS} THEN 1 END) AS fast`;

/**
 * The requests filed in `[@since, @until)` grouped by key and bucket for each of `dims` (by day too when `byDay`), and
 * by day and bucket for every request (`all`). The window's rows are read once (a materialized CTE).
 */
export function groupedRollupSql(dims: readonly string[], byDay: boolean): string {
  const stored = dims.filter((d) => d !== ALL_DIMENSION);
  const keys = stored.map((d, i) => `${KEYS[d as keyof typeof KEYS]} AS k${i}`).join(', ');
  const parts = stored.map(
    (d, i) =>
      `SELECT ${byDay ? 'day' : 'NULL'} AS day, '${d}' AS dim, k${i} AS key, bucket, ${COUNTS} FROM base GROUP BY ${byDay ? 'day, ' : ''}k${i}, bucket`,
  );
  parts.push(`SELECT day, '${ALL_DIMENSION}' AS dim, NULL AS key, bucket, ${COUNTS} FROM base GROUP BY day, bucket`);
  return `WITH base AS MATERIALIZED (
  SELECT *, ${bucketSql('ms')} AS bucket FROM (
    SELECT substr(r.created_at, 1, 10) AS day, ${keys ? `${keys}, ` : ''}r.status AS status,
      r.approved_args IS NOT NULL AS edited, ${DECISION_MS} AS ms
    FROM confirmation_requests r WHERE r.created_at >= @since AND r.created_at < @until
  )
)
${parts.join('\nUNION ALL\n')}`;
}

/** The rollup's whole days `[@from, @to)` of `@dim` (summed over days) and of `all` (by day). */
const ROLLUP_SUM_SQL = `SELECT CASE WHEN dim = '${ALL_DIMENSION}' THEN day END AS day, dim, key, bucket,
  SUM(requests) AS requests, SUM(approved) AS approved, SUM(denied) AS denied, SUM(expired) AS expired,
  SUM(cancelled) AS cancelled, SUM(edited) AS edited, SUM(human_approvals) AS humanApprovals, SUM(fast) AS fast
FROM insights_daily WHERE dim IN (@dim, '${ALL_DIMENSION}') AND day >= @from AND day < @to
GROUP BY CASE WHEN dim = '${ALL_DIMENSION}' THEN day END, dim, key, bucket`;

/** The statements answering `read`: the rollup's sum, then each live range's grouped rows. */
export function rollupReads(read: RollupRead): OffThreadRead[] {
  const reads: OffThreadRead[] = [];
  if (read.rollup) reads.push({ sql: ROLLUP_SUM_SQL, params: { dim: read.dim, ...read.rollup } });
  const live = groupedRollupSql([read.dim], false);
  for (const range of read.live)
    reads.push({ sql: live, params: { since: range.since.toISOString(), until: range.until.toISOString() } });
  return reads;
}

/** The state row, or null before the first refresh. */
export function readRollupState(sqlite: OpenDatabase['sqlite']): RollupState | null {
  const row = sqlite
    .prepare(
      'SELECT refreshed_at AS refreshedAt, through, open_from AS openFrom, dims FROM insights_rollup_state WHERE id = 1',
    )
    .get() as (Omit<RollupState, 'refreshedAt'> & { refreshedAt: string }) | undefined;
  return row ? { ...row, refreshedAt: new Date(row.refreshedAt) } : null;
}

const INSERT_SQL = `INSERT INTO insights_daily (day, dim, key, bucket, requests, approved, denied, expired, cancelled, edited, human_approvals, fast)
VALUES (@day, @dim, @key, @bucket, @requests, @approved, @denied, @expired, @cancelled, @edited, @humanApprovals, @fast)`;

const STATE_SQL = `INSERT INTO insights_rollup_state (id, refreshed_at, through, open_from, dims)
VALUES (1, @refreshedAt, @through, @openFrom, @dims)
ON CONFLICT (id) DO UPDATE SET refreshed_at = excluded.refreshed_at, through = excluded.through,
  open_from = excluded.open_from, dims = excluded.dims`;

/**
 * The refresh of `[from, through)` as one worker batch: the grouped read, then (in one write transaction) the days
 * replaced and the state row. The oldest pending request's day is read here first, on the caller's connection (one
 * index entry): a request still pending then may change later, so the next refresh starts at its day; one that
 * settles after this read is in the rows read next, or in the next refresh.
 */
export function refreshBatch(
  sqlite: OpenDatabase['sqlite'],
  range: { from: string | null; through: string },
  refreshedAt: Date,
): { read: OffThreadRead; write: OffThreadWrite; state: RollupState } {
  const through = range.through;
  const day = (sql: string) => (sqlite.prepare(sql).pluck().get({ through }) as string | null) ?? through;
  const pending = day(
    "SELECT substr(MIN(created_at), 1, 10) FROM confirmation_requests WHERE status = 'pending' AND created_at < @through",
  );
  const oldest = day('SELECT substr(MIN(created_at), 1, 10) FROM confirmation_requests');
  const from = range.from ?? '';
  const state: RollupState = {
    refreshedAt,
    through,
    openFrom: pending < through ? pending : through,
    dims: ROLLUP_DIMS_TAG,
  };
  return {
    read: {
      sql: groupedRollupSql([...ROLLUP_DIMENSIONS, ALL_DIMENSION], true),
      params: { since: from ? dayStart(from).toISOString() : '', until: dayStart(through).toISOString() },
    },
    write: {
      before: [{ sql: 'DELETE FROM insights_daily WHERE day >= @from OR day < @oldest', params: { from, oldest } }],
      insert: INSERT_SQL,
      after: [{ sql: STATE_SQL, params: { ...state, refreshedAt: refreshedAt.toISOString() } }],
    },
    state,
  };
}
