/**
 * @module stores/sqlite/history-reads
 * The SQLite store's reads of history: the audit query (`list`, built with drizzle because its filters vary), scans and
 * exports of every matching row, and the receipts exports join. Scans and exports read through a connection of their
 * own (`openHistoryReader`) whose small cache keeps a walk of the whole history out of the gateway's page cache, and
 * so out of its resident memory.
 */
import type Database from 'better-sqlite3';
import { and, desc, eq, sql } from 'drizzle-orm';
import { openHistoryReader, type OpenDatabase } from './database.js';
import { SqliteExportReader } from './export-pages.js';
import { PreparedStatements } from './prepared.js';
import { requestOfValues, rowToEvent } from './rows.js';
import { confirmationRequests as requests, confirmationVoters as voters } from './schema.js';
import { selectList, type Statements } from './statements.js';
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

/** A connection and the audit query's statements prepared on it. */
interface ListConnection {
  open: OpenDatabase;
  lists: PreparedStatements;
}

/** The connection history is read through, with the statements prepared on it. */
interface HistoryReader extends ListConnection {
  receiptsOf?: Database.Statement;
  pendingPlans?: Database.Statement;
  exports?: SqliteExportReader;
}

/** The history reads of `SqliteConfirmationStore`, which delegates to one of these. */
export class SqliteHistoryReads {
  /** See {@link reader}: undefined until first used, null where there can be none (`:memory:`). */
  private historyReader: HistoryReader | null | undefined;
  /** Exports' statements where there is no history reader (`:memory:`). */
  private ownExports: SqliteExportReader | undefined;
  /** The gateway's own connection, with the audit query's statements prepared on it. */
  private readonly own: ListConnection;

  constructor(
    private readonly open: OpenDatabase,
    private readonly sql: Statements,
  ) {
    this.own = { open, lists: new PreparedStatements(open.sqlite, true) };
  }

  /** Each request's latest receipt (`executed` / `execution_failed`), read on the history connection. */
  async receiptsOf(requestIds: readonly string[]): Promise<ConfirmationEvent[]> {
    const reader = this.reader();
    const statement = reader
      ? (reader.receiptsOf ??= reader.open.sqlite.prepare(this.sql.receiptsOf.source))
      : this.sql.receiptsOf;
    return (statement.all(JSON.stringify(requestIds)) as Parameters<typeof rowToEvent>[0][]).map(rowToEvent);
  }

  /** `ConfirmationStore.pendingPlans`, read on the history connection: start-up walks every pending row with it. */
  async pendingPlans(
    limit: number,
    afterExpiresAt?: Date,
    afterId?: string,
  ): Promise<{ id: string; expiresAt: Date; planned: boolean }[]> {
    const reader = this.reader();
    const statement = reader
      ? (reader.pendingPlans ??= reader.open.sqlite.prepare(this.sql.pendingPlans.source))
      : this.sql.pendingPlans;
    const rows = statement.all({ after: afterExpiresAt?.toISOString() ?? '', afterId: afterId ?? '', limit }) as {
      id: string;
      expiresAt: string;
      planned: number;
    }[];
    return rows.map((r) => ({ id: r.id, expiresAt: new Date(r.expiresAt), planned: r.planned === 1 }));
  }

  /** One page of the audit query, newest first, on the gateway's own connection. */
  list(query: RequestQuery): Promise<RequestPage> {
    return this.listOn(this.own, query);
  }

  /** Every request `query` matches, newest first, page by page on the history connection. */
  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    const on = this.reader() ?? this.own;
    return allPages((q) => this.listOn(on, q), query);
  }

  /** Every request `query` matches with its latest receipt, a page at a time, as exports write them. */
  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    // Several people are one index range each, merged (see list): rare in exports, so they take the general way.
    if (mergesRanges(query)) return exportPagesOf(this.scan(query), (ids) => this.receiptsOf(ids), format);
    const reader = this.reader();
    const receipts = { receiptsOf: this.sql.receiptsOf.source, receiptsBetween: this.sql.receiptsBetween.source };
    const exports = reader
      ? (reader.exports ??= new SqliteExportReader(reader.open, receipts))
      : (this.ownExports ??= new SqliteExportReader(this.open, receipts));
    // Every page after the first has a cursor, whose bound implies `until` (see KeysetDialect.untilByCursor): the first
    // page alone carries it.
    return exports.pages((after) => pageConditions(query, after), format);
  }

  /** Closes the history connection, if one was opened. */
  close(): void {
    this.historyReader?.open.close();
  }

  /** The history connection (`openHistoryReader`): opened on first use, kept until {@link close}. */
  private reader(): HistoryReader | null {
    if (this.historyReader === undefined) {
      const open = openHistoryReader(this.open.sqlite);
      this.historyReader = open ? { open, lists: new PreparedStatements(open.sqlite, true) } : null;
    }
    return this.historyReader;
  }

  /** One page of the audit query on `on`, its statement kept there (one per combination of filters). */
  private async listOn(on: ListConnection, query: RequestQuery): Promise<RequestPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    if (mergesRanges(query))
      return pageForEachPerson(
        (q) => this.listOn(on, q),
        query,
        limit,
        (person, q) => this.votedOn(on, person, q),
      );
    const page = on.open.db
      .select({ row: sql.raw(REQUEST_COLUMNS) })
      .from(requests)
      .where(and(...pageConditions(query, query.cursor ? decodeCursor(query.cursor) : undefined)))
      .orderBy(desc(requests.createdAt), desc(requests.id))
      .limit(limit + 1)
      .toSQL();
    const rows = on.lists.get(page.sql).all(...page.params) as unknown[][];
    return pageOf(
      rows.map((values) => requestOfValues(values)),
      limit,
    );
  }

  /**
   * One page of the requests `person` voted on without settling them, newest first: a range of the voters' primary key
   * (person, the request's created_at, its id) in order, each row then read by its id, the other filters on it.
   */
  private async votedOn(on: ListConnection, person: string, query: RequestQuery): Promise<RequestPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const page = on.open.db
      .select({ row: sql.raw(VOTED_COLUMNS) })
      .from(voters)
      .innerJoin(requests, eq(requests.id, voters.requestId))
      .where(
        and(
          eq(voters.person, person),
          ...keysetConditions(VOTERS_KEYSET, { ...query, respondedByPeople: undefined }, after),
        ),
      )
      .orderBy(desc(voters.requestCreatedAt), desc(voters.requestId))
      .limit(limit + 1)
      .toSQL();
    const rows = on.lists.get(page.sql).all(...page.params) as unknown[][];
    return pageOf(
      rows.map((values) => requestOfValues(values)),
      limit,
    );
  }
}

/** The list's select list qualified by its table, for the voters' join. */
const VOTED_COLUMNS = selectList(requests, '"confirmation_requests"');

/** The list's select list: every column under the name `rowToRequest` reads. */
const REQUEST_COLUMNS = selectList(requests);
/** Keyset pages on this dialect's table: times bound as it stores them (ISO text), a cursor's as the cursor says it. */
const SQLITE_KEYSET: KeysetDialect = {
  table: requests,
  time: (at) => at.toISOString(),
  repoIs: (repo) => sql`json_extract(${requests.context}, '$.repo') = ${repo}`,
  cursorTime: (at) => at,
  untilByCursor: true,
};

/** Keyset pages of a person's votes: the order and the time filters on the voters' copy of `created_at` and the id. */
const VOTERS_KEYSET: KeysetDialect = {
  ...SQLITE_KEYSET,
  table: {
    status: requests.status,
    toolName: requests.toolName,
    agentId: requests.agentId,
    agentKind: requests.agentKind,
    respondedBy: requests.respondedBy,
    respondedByPerson: requests.respondedByPerson,
    createdAt: voters.requestCreatedAt,
    id: voters.requestId,
  },
};

/** The conditions of the page of `query` after the row at `after` (see keysetConditions). */
const pageConditions = (query: RequestQuery, after?: CursorPosition) => keysetConditions(SQLITE_KEYSET, query, after);
