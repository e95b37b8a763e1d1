/**
 * @module stores/keyset
 * The audit query's keyset pages, newest first, for either store's `confirmation_requests` table: the conditions a
 * page after a cursor's row is read with (the list API's pages and the exports' alike). The dialects differ in how a
 * time is bound (SQLite stores ISO text, PostgreSQL a timestamp) and in whether a cursor's bound takes over from
 * `until` (SQLite only: see {@link KeysetDialect.untilByCursor}).
 */
import { lt, lte, or, type Column, type SQL } from 'drizzle-orm';
import { auditFilters, type AuditColumns } from './audit-filters.js';
import type { CursorPosition } from '../requests/cursor.js';
import type { RequestQuery } from '../requests/store.js';

/** How one dialect reads keyset pages of its `confirmation_requests` table. */
export interface KeysetDialect {
  table: AuditColumns & Record<'id', Column>;
  /** A filter's time (`since`, `until`) as the dialect binds it. */
  time(at: Date): string | Date;
  /** `context.repo` equals `repo` (the JSON column read the dialect's way). */
  repoIs(repo: string): SQL;
  /** A cursor's `createdAt` (ISO 8601, as the cursor or the row carries it) as the dialect binds it. */
  cursorTime(at: string): string | Date;
  /**
   * Whether `until` is left out when the cursor's row is not newer than it: the cursor's bound then implies `until`,
   * and SQLite searches the created index from one upper bound only. Searched from `until`, every page walked the rows
   * of all the pages before it: a million-row export with `until` (as the bench's) read 22k rows per CPU-second,
   * against 220k without (10-million-row history). PostgreSQL keeps both bounds, as it always has.
   */
  untilByCursor: boolean;
}

/**
 * The conditions of the page of `query` after the row at `after` (the first page without it): the audit filters, and
 * the keyset condition `created_at < c OR (created_at = c AND id < i)` written as `created_at <= c AND (created_at < c
 * OR id < i)`, the same rows with a bound the created index can be searched by. Written the first way, every cursor
 * page walked the index from the newest row down to the cursor, so a million-row export read ~10^9 index entries.
 */
export function keysetConditions(
  dialect: KeysetDialect,
  query: RequestQuery,
  after?: CursorPosition,
): (SQL | undefined)[] {
  const { table } = dialect;
  const untilImplied =
    after && dialect.untilByCursor && query.until && Date.parse(after.createdAt) <= query.until.getTime();
  const where = auditFilters(
    table,
    untilImplied ? { ...query, until: undefined } : query,
    dialect.time,
    dialect.repoIs,
  );
  if (after) {
    const createdAt = dialect.cursorTime(after.createdAt);
    where.push(lte(table.createdAt, createdAt), or(lt(table.createdAt, createdAt), lt(table.id, after.id)));
  }
  return where;
}
