/**
 * @module requests/postgres/export-pages
 * Exports on PostgreSQL (`ConfirmationStore.exportPages` with one person at most): keyset pages of {@link PAGE} rows
 * read as arrays of the export's fields, times formatted by the server as `toISOString` writes them, so no drizzle
 * row mapping, no `Date` and no request object per row; the `jsonb` columns are parsed by `pg` and written back with
 * `JSON.stringify`, which is what gives their bytes (the server's own text spaces and orders keys its way). Built
 * through `scan` before, an export spent ~26 µs of CPU per row and grew the process by ~90 MB over 200,000 rows.
 */
import { and, desc, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { confirmationRequests as requests } from './schema.js';
import { lineOf, type ExportFormat, type ExportPage } from '../export-lines.js';
import { EXPORT_FIELDS, EXPORT_JSON_FIELDS, receiptsById, type ExportRow } from '../export-rows.js';
import type { ConfirmationEvent } from '../types.js';

/** Rows per page, as on SQLite: one statement, one receipts read. */
const PAGE = 1000;

const TIMES = new Set(['created_at', 'expires_at', 'updated_at', 'responded_at']);
/** The export's fields as the select list: times as ISO 8601 text in UTC, with milliseconds (the columns' precision). */
const COLUMNS = EXPORT_FIELDS.map((f) => (TIMES.has(f) ? `to_char("${f}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `"${f}"`)).join(', ');
const JSON_AT = EXPORT_FIELDS.flatMap((f, i) => (EXPORT_JSON_FIELDS.has(f) ? [i] : []));
const CREATED_AT = EXPORT_FIELDS.indexOf('created_at');

/** Every row matching `where` (the audit query's filters), newest first, as export pages in `format`. */
export async function* postgresExportPages(
  open: OpenPostgres,
  where: (SQL | undefined)[],
  format: ExportFormat,
  receiptsOf: (ids: readonly string[]) => Promise<ConfirmationEvent[]>,
): AsyncIterable<ExportPage> {
  let after: ExportRow | undefined;
  for (;;) {
    const conditions = [...where];
    if (after) {
      const createdAt = new Date(after[CREATED_AT] as string);
      // The list API's condition (see PostgresConfirmationStore.list), bounded so the index is searched from the cursor.
      conditions.push(lte(requests.createdAt, createdAt), or(lt(requests.createdAt, createdAt), lt(requests.id, after[0] as string)));
    }
    const query = open.db.select({ row: sql.raw(COLUMNS) }).from(requests).where(and(...conditions)).orderBy(desc(requests.createdAt), desc(requests.id)).limit(PAGE).toSQL();
    const rows = await withPostgresErrors(async () => (await open.pool.query({ text: query.sql, values: query.params, rowMode: 'array' })).rows as ExportRow[]);
    if (rows.length === 0) return;
    for (const row of rows) for (const i of JSON_AT) if (row[i] !== null) row[i] = JSON.stringify(row[i]);
    const receipts = receiptsById(await receiptsOf(rows.map((r) => r[0] as string)));
    yield { lines: rows.map((row) => lineOf(row, format)), receipts };
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1];
  }
}
