/**
 * @module stores/postgres/schema-insights
 * The PostgreSQL tables of insights' daily rollup (`insights/rollup.ts`), as on SQLite
 * (`../sqlite/schema-insights.ts`), written only by its refresh job. Re-exported by `schema.ts`, so
 * `drizzle-kit generate` sees them.
 */
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from './schema-columns.js';

/** Insights' daily rollup, as on SQLite (`../sqlite/schema-insights.ts`, `insightsDaily`): days are `YYYY-MM-DD` text. */
export const insightsDaily = pgTable(
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

/** The rollup's state, one row, as on SQLite (`insightsRollupState`). */
export const insightsRollupState = pgTable('insights_rollup_state', {
  id: integer('id').primaryKey(),
  refreshedAt: at('refreshed_at').notNull(),
  through: text('through').notNull(),
  openFrom: text('open_from').notNull(),
  dims: text('dims').notNull(),
});
