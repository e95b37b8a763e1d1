/**
 * @module stores/sqlite/export-pages
 * Exports on SQLite (`ConfirmationStore.exportPages`): keyset pages of {@link PAGE} rows, each one prepared statement
 * in raw mode — no drizzle row mapping, no `JSON.parse`, no `Date`, no request object per row. NDJSON lines come
 * back rendered by SQLite (`export-sql.ts`); CSV rows as their stored values (JSON columns as the text `requestToRow`
 * wrote with `JSON.stringify`, times as the ISO text it wrote), rendered by `lineOf`. Each page is read
 * synchronously in its own statement, so no read transaction stays open across the export's writes (the WAL can still
 * be checkpointed) and exports running side by side on one connection do not collide in a half-read statement.
 */
import type Database from 'better-sqlite3';
import { and, desc, sql, type SQL } from 'drizzle-orm';
import type { OpenDatabase } from './database.js';
import { CSV_ROW_COLUMNS, NDJSON_LINE_COLUMNS, type ExportLineRow } from './export-sql.js';
import { PreparedStatements } from './prepared.js';
import { rowToEvent } from './rows.js';
import { confirmationRequests as requests } from './schema.js';
import type { CursorPosition } from '../../requests/cursor.js';
import { lineOf, type ExportFormat, type ExportLine, type ExportPage } from '../../requests/export-lines.js';
import { EXPORT_ALLOWED, EXPORT_FIELDS, receiptsById, type ExportRow } from '../../requests/export-rows.js';
import type { ConfirmationEvent } from '../../requests/types.js';

/** An event as the store's statements read it. */
type EventRow = Parameters<typeof rowToEvent>[0];

/**
 * Rows per page: a page is one statement, one receipts read and one write of ~0.9 MB of NDJSON. Larger pages cost
 * nothing more per row and hold more memory; 500 (the list API's page) made twice as many statements and writes.
 */
const PAGE = 1000;

const COLUMNS: Record<ExportFormat, string> = { csv: CSV_ROW_COLUMNS, ndjson: NDJSON_LINE_COLUMNS };

/** Where a row's `created_at` (for the keyset) sits in a page's raw rows. */
const CREATED_AT: Record<ExportFormat, number> = { csv: EXPORT_FIELDS.length, ndjson: 3 };

/**
 * Receipts an export page reads over its ids' range before it reads them by id instead: the range of a page of a
 * filtered export can hold receipts of many rows the filter left out.
 */
const RANGE_RECEIPTS = 2 * PAGE;

/** The store's receipt statements' SQL (see `statements.ts`), prepared again on the reader's connection. */
export interface ReceiptsSql {
  /** A JSON array of ids in, each one's latest receipt out. */
  receiptsOf: string;
  /** Two ids and a limit in, the receipts of every request between them out, by request and in order. */
  receiptsBetween: string;
}

/** Reads export pages through one connection (the history reader), its statements prepared once per query shape. */
export class SqliteExportReader {
  private readonly statements: PreparedStatements;
  private receiptsOf: Database.Statement | undefined;
  private receiptsBetween: Database.Statement | undefined;

  constructor(
    private readonly open: OpenDatabase,
    private readonly receiptsSql: ReceiptsSql,
  ) {
    this.statements = new PreparedStatements(open.sqlite, true);
  }

  /**
   * Every row the audit query matches, newest first, as export pages; `where` gives the conditions of the page after
   * the row `after` (the first page without it), the list API's keyset pages (`keysetConditions`).
   */
  async *pages(
    where: (after?: CursorPosition) => (SQL | undefined)[],
    format: ExportFormat,
  ): AsyncIterable<ExportPage> {
    let after: CursorPosition | undefined;
    for (;;) {
      const { lines, next } = this.lines(where(after), format);
      if (lines.length === 0) return;
      yield { lines, receipts: receiptsById(this.receipts(lines.map((l) => l[0]))) };
      if (!next) return;
      after = next;
    }
  }

  /**
   * A page's lines, and where the next page starts (none after a short page). A CSV page's raw rows end here: kept
   * beside their lines while the page is written, they doubled what each page leaves to the garbage collector.
   */
  private lines(where: (SQL | undefined)[], format: ExportFormat) {
    const rows = this.page(where, format);
    const last = rows.length === PAGE ? rows[PAGE - 1] : undefined;
    const next = last && { createdAt: last[CREATED_AT[format]] as string, id: last[0] as string };
    // An NDJSON row is its line already (created_at rides along unread).
    return { lines: format === 'ndjson' ? (rows as ExportLineRow[]) : (rows as ExportRow[]).map(csvLine), next };
  }

  /**
   * The receipts of a page's rows. Request ids are UUIDv7, in creation order, so a page's ids lie in a narrow range:
   * one walk of the receipts index over it (most pages: nothing to walk) instead of a probe per id, which cost ~1 µs a
   * row even where there was no receipt. A range holding more receipts than {@link RANGE_RECEIPTS} (an export filtered
   * down to a few rows among many with receipts) is read by id after all.
   */
  private receipts(ids: string[]): ConfirmationEvent[] {
    let low = ids[0]!;
    let high = low;
    for (const id of ids) {
      if (id < low) low = id;
      else if (id > high) high = id;
    }
    this.receiptsBetween ??= this.open.sqlite.prepare(this.receiptsSql.receiptsBetween);
    const between = this.receiptsBetween.all(low, high, RANGE_RECEIPTS + 1) as EventRow[];
    if (between.length === 0) return [];
    if (between.length <= RANGE_RECEIPTS) {
      const page = new Set(ids);
      return between.filter((r) => page.has(r.requestId)).map(rowToEvent);
    }
    this.receiptsOf ??= this.open.sqlite.prepare(this.receiptsSql.receiptsOf);
    return (this.receiptsOf.all(JSON.stringify(ids)) as EventRow[]).map(rowToEvent);
  }

  /** One page of rows matching `where`, its statement prepared once per query shape. */
  private page(where: (SQL | undefined)[], format: ExportFormat): ExportLineRow[] | ExportRow[] {
    const query = this.open.db
      .select({ row: sql.raw(COLUMNS[format]) })
      .from(requests)
      .where(and(...where))
      .orderBy(desc(requests.createdAt), desc(requests.id))
      .limit(PAGE)
      .toSQL();
    return this.statements.get(query.sql).all(...query.params) as ExportLineRow[] | ExportRow[];
  }
}

/** A CSV page's raw row as its line: `allowed` is stored as 0 / 1 (see requestToRow). */
function csvLine(row: ExportRow): ExportLine {
  if (row[EXPORT_ALLOWED] !== null) row[EXPORT_ALLOWED] = row[EXPORT_ALLOWED] === 1;
  return lineOf(row, 'csv');
}
