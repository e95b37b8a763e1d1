/**
 * @module stores/postgres/history-reads
 * The PostgreSQL store's reads of history: the audit query (`list`, built with drizzle because its filters vary), scans
 * and exports of every matching row, and the receipts exports join. As on SQLite (`sqlite/history-reads.ts`), but on
 * the store's own pool: SQLite's history connection keeps its page cache out of the gateway's memory, and PostgreSQL's
 * cache is the server's.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { auditFilters } from '../audit-filters.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { postgresExportPages } from './export-pages.js';
import { rowToEvent, rowToRequest } from './rows.js';
import { confirmationRequests as requests, confirmationVoters as voters } from './schema.js';
import { named, SQL_TEXT } from './statements.js';
import {
  allPages,
  decodeCursor,
  mergesRanges,
  pageForEachPerson,
  pageOf,
  type CursorPosition,
} from '../../requests/cursor.js';
import { exportPagesOf, type ExportFormat, type ExportPage } from '../../requests/export-lines.js';
import { keysetConditions, type KeysetDialect } from '../keyset.js';
import type { RequestPage, RequestQuery } from '../../requests/store.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../../requests/types.js';

/** The history reads of `PostgresConfirmationStore`, which delegates to one of these. */
export class PostgresHistoryReads {
  constructor(private readonly open: OpenPostgres) {}

  /** Each request's latest receipt (`executed` / `execution_failed`). */
  async receiptsOf(requestIds: readonly string[]): Promise<ConfirmationEvent[]> {
    return withPostgresErrors(async () =>
      (await this.open.pool.query(named(SQL_TEXT.receiptsOf, [requestIds]))).rows.map(rowToEvent),
    );
  }

  /** One page of the audit query, newest first. */
  async list(query: RequestQuery): Promise<RequestPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    if (mergesRanges(query))
      return pageForEachPerson(
        (q) => this.list(q),
        query,
        limit,
        (person, q) => this.votedOn(person, q),
      );
    const where = pageConditions(query, query.cursor ? decodeCursor(query.cursor) : undefined);
    // Ids are UUIDv7 (fixed-width lowercase hex), so `ORDER BY id` agrees with SQLite's byte order under any collation.
    const rows = await withPostgresErrors(() =>
      this.open.db
        .select()
        .from(requests)
        .where(and(...where))
        .orderBy(desc(requests.createdAt), desc(requests.id))
        .limit(limit + 1),
    );
    return pageOf(rows.map(rowToRequest), limit);
  }

  /**
   * One page of the requests `person` voted on without settling them, newest first: a range of the voters' primary key
   * (person, the request's created_at, its id) in order, each row then read by its id with the other filters. The row
   * is read in a LATERAL subquery so it is always a look-up by id: joined plainly, a small table's statistics made the
   * planner hash-join a sequential scan of every request (`query-plans.test.ts`).
   */
  private async votedOn(person: string, query: RequestQuery): Promise<RequestPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const { since, until, ...onRequest } = query;
    const row = this.open.db
      .select()
      .from(requests)
      .where(
        and(
          eq(requests.id, voters.requestId),
          ...auditFilters(requests, { ...onRequest, respondedByPeople: undefined }, (at) => at, POSTGRES_KEYSET.repoIs),
        ),
      )
      .limit(1)
      .as('r');
    const rows = await withPostgresErrors(() =>
      this.open.db
        .select()
        .from(voters)
        .innerJoinLateral(row, sql`true`)
        .where(and(eq(voters.person, person), ...keysetConditions(VOTERS_KEYSET, { since, until }, after)))
        .orderBy(desc(voters.requestCreatedAt), desc(voters.requestId))
        .limit(limit + 1),
    );
    return pageOf(
      rows.map((r) => rowToRequest(r.r)),
      limit,
    );
  }

  /** Every request `query` matches, newest first, page by page. */
  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    return allPages((q) => this.list(q), query);
  }

  /** Every request `query` matches with its latest receipt, a page at a time, as exports write them. */
  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    const receiptsOf = (ids: readonly string[]) => this.receiptsOf(ids);
    // Several people are one index range each, merged (see list): rare in exports, so they take the general way.
    if (mergesRanges(query)) return exportPagesOf(this.scan(query), receiptsOf, format);
    return postgresExportPages(this.open, (after) => pageConditions(query, after), format, receiptsOf);
  }
}

/** Keyset pages on this dialect's table: times bound as timestamps, `until` kept beside a cursor. */
const POSTGRES_KEYSET: KeysetDialect = {
  table: requests,
  time: (at) => at,
  repoIs: (repo) => sql`${requests.context}->>'repo' = ${repo}`,
  cursorTime: (at) => new Date(at),
  untilByCursor: false,
};

/** Keyset pages of a person's votes: the order and the time filters on the voters' copy of `created_at` and the id. */
const VOTERS_KEYSET: KeysetDialect = {
  ...POSTGRES_KEYSET,
  table: { ...requests, createdAt: voters.requestCreatedAt, id: voters.requestId },
};

/** The conditions of the page of `query` after the row at `after` (see keysetConditions). */
const pageConditions = (query: RequestQuery, after?: CursorPosition) => keysetConditions(POSTGRES_KEYSET, query, after);
