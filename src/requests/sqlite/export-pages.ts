/**
 * @module requests/sqlite/export-pages
 * Exports on SQLite (`ConfirmationStore.exportPages`): keyset pages of {@link PAGE} rows, each one prepared statement
 * in raw mode read into {@link ExportRow}s as they are stored — JSON columns as the text `requestToRow` wrote with
 * `JSON.stringify`, times as the ISO text it wrote — with no drizzle row mapping, no `JSON.parse`, no `Date` and no
 * request object per row. Each page is read synchronously in its own statement, so no read transaction stays open
 * across the export's writes (the WAL can still be checkpointed) and exports running side by side on one connection do
 * not collide in a half-read statement.
 */
import type Database from 'better-sqlite3';
import { and, desc, getTableColumns, lt, lte, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { OpenDatabase } from './database.js';
import { rowToEvent } from './rows.js';
import { confirmationRequests as requests } from './schema.js';
import { EXPORT_ALLOWED, EXPORT_FIELDS, receiptsById, type ExportPage, type ExportRow } from '../export-rows.js';

/**
 * Rows per page: a page is one statement, one receipts read and one write of ~0.9 MB of NDJSON. Larger pages cost
 * nothing more per row and hold more memory; 500 (the list API's page) made twice as many statements and writes.
 */
const PAGE = 1000;

/** The table's column behind each export field: the SQLite columns carry the API's snake_case names. */
const SELECTION: Record<string, SQLiteColumn> = (() => {
  const byName = new Map(Object.values(getTableColumns(requests)).map((c) => [c.name, c]));
  return Object.fromEntries(
    EXPORT_FIELDS.map((field) => {
      const column = byName.get(field);
      if (!column) throw new Error(`export field ${field} has no column in confirmation_requests`);
      return [field, column];
    }),
  );
})();

const CREATED_AT = EXPORT_FIELDS.indexOf('created_at');
const ID = EXPORT_FIELDS.indexOf('id');

/** Reads export pages through one connection (the history reader), its statements prepared once per query shape. */
export class SqliteExportReader {
  private readonly statements = new Map<string, Database.Statement>();
  private receipts: Database.Statement | undefined;

  /** `receiptsSql` is the store's `receiptsOf` statement (a JSON array of ids in, each one's latest receipt out). */
  constructor(
    private readonly open: OpenDatabase,
    private readonly receiptsSql: string,
  ) {}

  /** Every row matching `where` (the audit query's filters), newest first, as export pages. */
  async *pages(where: (SQL | undefined)[]): AsyncIterable<ExportPage> {
    let after: ExportRow | undefined;
    for (;;) {
      const rows = this.page(where, after);
      if (rows.length === 0) return;
      const ids = JSON.stringify(rows.map((r) => r[ID]));
      this.receipts ??= this.open.sqlite.prepare(this.receiptsSql);
      const receipts = receiptsById((this.receipts.all(ids) as Parameters<typeof rowToEvent>[0][]).map(rowToEvent));
      yield { rows, receipts };
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1];
    }
  }

  /** The page after the row `after` (the first page without it), with the list API's keyset condition. */
  private page(where: (SQL | undefined)[], after: ExportRow | undefined): ExportRow[] {
    const conditions = [...where];
    if (after) {
      const createdAt = after[CREATED_AT] as string;
      // The list API's condition (see SqliteConfirmationStore.list): bounded, so SQLite seeks the index to the cursor.
      conditions.push(lte(requests.createdAt, createdAt), or(lt(requests.createdAt, createdAt), lt(requests.id, after[ID] as string)));
    }
    const query = this.open.db
      .select(SELECTION)
      .from(requests)
      .where(and(...conditions))
      .orderBy(desc(requests.createdAt), desc(requests.id))
      .limit(PAGE)
      .toSQL();
    let statement = this.statements.get(query.sql);
    if (!statement) {
      statement = this.open.sqlite.prepare(query.sql).raw(true);
      this.statements.set(query.sql, statement);
    }
    const rows = statement.all(...query.params) as ExportRow[];
    // Stored as 0 / 1 (see requestToRow).
    for (const row of rows) if (row[EXPORT_ALLOWED] !== null) row[EXPORT_ALLOWED] = row[EXPORT_ALLOWED] === 1;
    return rows;
  }
}
