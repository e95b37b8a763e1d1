/**
 * @module stores/postgres/export-pages
 * Exports on PostgreSQL (`ConfirmationStore.exportPages` with one person at most): keyset pages of {@link PAGE} rows
 * read as arrays, times formatted by the server as `toISOString` writes them, so no drizzle row mapping, no `Date`
 * and no request object per row; for NDJSON the server also renders every field but the JSON ones. The `jsonb`
 * columns are parsed by `pg` and written back with `JSON.stringify`, which is what gives their bytes (the server's
 * own text spaces and orders keys its way). Built through `scan` before, an export spent ~26 µs of CPU per row and
 * grew the process by ~90 MB over 200,000 rows.
 */
import { and, desc, sql, type SQL } from 'drizzle-orm';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { confirmationRequests as requests } from './schema.js';
import type { CursorPosition } from '../../requests/cursor.js';
import {
  lineOf,
  NDJSON_HEAD_END,
  NDJSON_KEYS,
  sqlLiteral,
  type ExportFormat,
  type ExportLine,
  type ExportPage,
} from '../../requests/export-lines.js';
import {
  EXPORT_FIELDS,
  EXPORT_JSON_FIELDS,
  receiptsById,
  type ExportField,
  type ExportRow,
} from '../../requests/export-rows.js';
import type { ConfirmationEvent } from '../../requests/types.js';

/** Rows per page, as on SQLite: one statement, one receipts read. */
const PAGE = 1000;

const TIMES = new Set(['created_at', 'expires_at', 'updated_at', 'responded_at']);
/** A field's value as an {@link ExportRow} holds it, JSON columns still parsed: times as ISO 8601 text in UTC with milliseconds (the columns' precision). */
const value = (f: ExportField) =>
  TIMES.has(f) ? `to_char("${f}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `"${f}"`;

/** How a page is read in one format: its select list (id first, `created_at` second or at `createdAt`) and its row's line. */
interface Shape {
  columns: string;
  createdAt: number;
  line(row: unknown[]): ExportLine;
}

/** CSV: the {@link ExportRow}, JSON columns stringified here, rendered by `lineOf`. */
const CSV: Shape = {
  columns: EXPORT_FIELDS.map(value).join(', '),
  createdAt: EXPORT_FIELDS.indexOf('created_at'),
  line(row) {
    for (let i = 0; i < row.length; i++)
      if (EXPORT_JSON_FIELDS.has(EXPORT_FIELDS[i]!) && row[i] !== null) row[i] = JSON.stringify(row[i]);
    return lineOf(row as ExportRow, 'csv');
  },
};

/**
 * NDJSON: the server renders every field but the JSON columns (`to_json` escapes text as `JSON.stringify` does), so a
 * row is `id`, `created_at`, then text and parsed JSON values in turn, joined here with the JSON ones stringified.
 */
const NDJSON: Shape = (() => {
  const parts: string[] = [];
  let text: string[] = [];
  EXPORT_FIELDS.forEach((f, i) => {
    text.push(sqlLiteral(NDJSON_KEYS[i]!));
    if (!EXPORT_JSON_FIELDS.has(f)) return void text.push(`coalesce(to_json(${value(f)})::text, 'null')`);
    parts.push(`concat(${text.join(', ')})`, `"${f}"`);
    text = [];
  });
  parts.push(`concat(${[...text, sqlLiteral(NDJSON_HEAD_END)].join(', ')})`);
  return {
    columns: `"id", ${value('created_at')}, ${parts.join(', ')}`,
    createdAt: 1,
    line(row) {
      let head = row[2] as string;
      for (let i = 3; i < row.length; i += 2)
        head += (row[i] === null ? 'null' : JSON.stringify(row[i])) + (row[i + 1] as string);
      return [row[0] as string, head, '}\n'];
    },
  };
})();

/**
 * Every row the audit query matches, newest first, as export pages in `format`; `where` gives the conditions of the
 * page after the row `after` (the first page without it), the list API's keyset pages (`keysetConditions`).
 */
export async function* postgresExportPages(
  open: OpenPostgres,
  where: (after?: CursorPosition) => (SQL | undefined)[],
  format: ExportFormat,
  receiptsOf: (ids: readonly string[]) => Promise<ConfirmationEvent[]>,
): AsyncIterable<ExportPage> {
  const shape = format === 'csv' ? CSV : NDJSON;
  let after: CursorPosition | undefined;
  for (;;) {
    const rows = await page(open, where(after), shape);
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    const receipts = receiptsById(await receiptsOf(rows.map((r) => r[0] as string)));
    yield { lines: rows.map(shape.line), receipts };
    if (rows.length < PAGE) return;
    after = { createdAt: last[shape.createdAt] as string, id: last[0] as string };
  }
}

/** One page of rows matching `where`, as arrays in `shape`'s columns. */
async function page(open: OpenPostgres, where: (SQL | undefined)[], shape: Shape): Promise<unknown[][]> {
  const query = open.db
    .select({ row: sql.raw(shape.columns) })
    .from(requests)
    .where(and(...where))
    .orderBy(desc(requests.createdAt), desc(requests.id))
    .limit(PAGE)
    .toSQL();
  return withPostgresErrors(
    async () =>
      (await open.pool.query({ text: query.sql, values: query.params, rowMode: 'array' })).rows as unknown[][],
  );
}
