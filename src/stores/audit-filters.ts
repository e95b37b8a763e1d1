/**
 * @module stores/audit-filters
 * The audit query's filters (`RequestQuery`) as drizzle conditions, for either store's `confirmation_requests` table:
 * the two dialects name the same columns and differ only in how a time is bound (SQLite stores ISO text, PostgreSQL
 * a timestamp).
 */
import { eq, gte, inArray, lte, sql, type Column, type SQL } from 'drizzle-orm';
import type { RequestQuery } from '../requests/store.js';

/** The columns the filters read, as both dialects' schemas name them. */
export type AuditColumns = Record<
  'status' | 'toolName' | 'agentId' | 'agentKind' | 'respondedBy' | 'respondedByPerson' | 'createdAt',
  Column
>;

/**
 * One condition per filter set in `q` (undefined for the others, which drizzle's `and` skips). `repoIs` is the
 * dialect's test of the JSON `context.repo` (`?repo=`).
 */
export function auditFilters(
  table: AuditColumns,
  q: RequestQuery,
  time: (at: Date) => string | Date,
  repoIs: (repo: string) => SQL,
): (SQL | undefined)[] {
  return [
    q.status && eq(table.status, q.status),
    q.toolName !== undefined ? eq(table.toolName, q.toolName) : undefined,
    q.agentId !== undefined ? eq(table.agentId, q.agentId) : undefined,
    q.agentKind !== undefined ? eq(table.agentKind, q.agentKind) : undefined,
    q.repo !== undefined ? repoIs(q.repo) : undefined,
    q.respondedBy !== undefined ? eq(table.respondedBy, q.respondedBy) : undefined,
    q.respondedByPeople !== undefined
      ? q.respondedByPeople.length
        ? inArray(table.respondedByPerson, [...q.respondedByPeople])
        : sql`false`
      : undefined,
    q.since && gte(table.createdAt, time(q.since)),
    q.until && lte(table.createdAt, time(q.until)),
  ];
}
