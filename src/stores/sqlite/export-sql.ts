/**
 * @module stores/sqlite/export-sql
 * The SQL that renders NDJSON export lines inside SQLite (`export-pages.ts`): each row comes back as its id, the text
 * of its line before the execution part and the text after it (`ExportLine`), so better-sqlite3 hands
 * JavaScript three strings per row instead of thirty values. Reading thirty columns into JavaScript values was half of
 * an export's CPU (~5–7 of ~11 µs per row at 200,000 rows); SQLite builds the same text in C with `concat` (one
 * allocation per line). CSV is not built here: a cell's rules (null, a formula's first character, quoting, doubled
 * quotes) cost SQLite ~10 µs per row in expressions, more than reading the columns and rendering them in JavaScript.
 *
 * The bytes are those `lineOf` writes from the same row (the store contract's `exportPages` test,
 * `test/contracts/store-queries.contract.ts`): SQLite's `json_quote` escapes exactly as `JSON.stringify` does
 * (checked for every code point outside the surrogates, NUL included), the JSON columns hold `JSON.stringify`'s text
 * already, and `allowed` is stored as 0 / 1.
 */
import { NDJSON_HEAD_END, NDJSON_KEYS, sqlLiteral } from '../../requests/export-lines.js';
import { EXPORT_FIELDS, EXPORT_JSON_FIELDS, type ExportField } from '../../requests/export-rows.js';

/** `JSON.stringify` of the field's value: JSON columns as stored, `allowed` (0 / 1) as a boolean, the rest through `json_quote`. */
function jsonValue(field: ExportField): string {
  if (EXPORT_JSON_FIELDS.has(field)) return `coalesce("${field}", 'null')`;
  if (field === 'allowed')
    return `CASE WHEN "allowed" IS NULL THEN 'null' WHEN "allowed" = 1 THEN 'true' ELSE 'false' END`;
  return `json_quote("${field}")`;
}

/**
 * The select list of an NDJSON page: `id`, the line's head and tail (see `ExportLine`), then `created_at` for
 * the next page's keyset condition.
 */
export const NDJSON_LINE_COLUMNS = `"id", concat(${[...EXPORT_FIELDS.flatMap((f, i) => [sqlLiteral(NDJSON_KEYS[i]!), jsonValue(f)]), sqlLiteral(NDJSON_HEAD_END)].join(', ')}), '}\n', "created_at"`;

/** The select list of a CSV page: the `ExportRow`'s columns, then `created_at` again (for the keyset). */
export const CSV_ROW_COLUMNS = `${EXPORT_FIELDS.map((f) => `"${f}"`).join(', ')}, "created_at"`;

/** An NDJSON page's row: an `ExportLine` and the row's `created_at`. */
export type ExportLineRow = [id: string, head: string, tail: string, createdAt: string];
