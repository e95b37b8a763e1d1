/**
 * @module stores/sqlite/schema-insights
 * The SQLite tables of insights' daily rollup (`insights/rollup.ts`), written only by its refresh job. Re-exported by
 * `schema.ts`, so `drizzle-kit generate` sees them.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Insights' daily rollup (`insights/rollup.ts`): per UTC filing day, dimension and key, the requests' exact counts,
 * split by the DDSketch bucket of their time to decision (`bucket` null: no time, as for a verdict nobody gave), so
 * counts and percentiles of any window of whole days are sums. Written only by the refresh job, never by a create or a
 * decision. No primary key: `key` and `bucket` may be null, and a refresh replaces whole days.
 */
export const insightsDaily = sqliteTable(
  'insights_daily',
  {
    day: text('day').notNull(),
    dim: text('dim').notNull(),
    key: text('key'),
    bucket: integer('bucket'),
    requests: integer('requests').notNull(),
    approved: integer('approved').notNull(),
    denied: integer('denied').notNull(),
    expired: integer('expired').notNull(),
    cancelled: integer('cancelled').notNull(),
    edited: integer('edited').notNull(),
    humanApprovals: integer('human_approvals').notNull(),
    fast: integer('fast').notNull(),
  },
  (t) => [index('insights_daily_dim_day').on(t.dim, t.day)],
);

/**
 * The rollup's state, one row (`id` 1): when it was refreshed, the first day it does not cover (`through`: the
 * refresh's today, read live), the oldest day a request still pending could change (`open_from`: the next refresh
 * starts there), and the dimensions it holds (a new one means a rebuild).
 */
export const insightsRollupState = sqliteTable('insights_rollup_state', {
  id: integer('id').primaryKey(),
  refreshedAt: text('refreshed_at').notNull(),
  through: text('through').notNull(),
  openFrom: text('open_from').notNull(),
  dims: text('dims').notNull(),
});
