/**
 * @module requests/export-lines
 * How an export writes a request (`GET /v1/requests/export`, `tollgate audit export`): one CSV or NDJSON line per
 * request, with the latest execution receipt beside the API's fields. A store hands the export lines already rendered
 * but for the receipt ({@link ExportLine}): SQLite builds NDJSON lines in SQL (`sqlite/export-sql.ts`, one string per
 * row instead of thirty values), PostgreSQL all of an NDJSON line but its `jsonb` fields, and the rest is rendered
 * from {@link ExportRow}s with {@link lineOf}. All write the same bytes
 * (the store contract's `exportPages` test, `test/contracts/store-queries.contract.ts`).
 */
import {
  EXPORT_FIELDS,
  EXPORT_JSON_FIELDS,
  exportRowOf,
  receiptsById,
  type ExportField,
  type ExportRow,
} from './export-rows.js';
import type { ConfirmationEvent, ConfirmationRequest } from './types.js';

/** The formats an export writes. */
export type ExportFormat = 'csv' | 'ndjson';

/** What the runtime reported after the tool ran: the latest `executed` / `execution_failed` event, flattened. */
export interface ExecutionView {
  outcome: 'executed' | 'execution_failed';
  at: string;
  by: string | null;
  /** SHA-256 of the arguments that ran, when the runtime reported it. */
  args_sha256: string | null;
  /** Whether they are the approved ones (null when no hash was reported). */
  args_match: boolean | null;
  /** Whether the request was allowed when the tool ran (false: it ran without an approval). */
  allowed: boolean | null;
  detail: string | null;
}

/** The latest receipt among `events` (oldest first), flattened; null when the tool was never reported run. */
export function executionOf(events: readonly ConfirmationEvent[]): ExecutionView | null {
  const receipt = events.findLast((e) => e.type === 'executed' || e.type === 'execution_failed');
  if (!receipt) return null;
  const d = receipt.detail;
  return {
    outcome: receipt.type as ExecutionView['outcome'],
    at: receipt.at.toISOString(),
    by: receipt.actor,
    args_sha256: typeof d.args_sha256 === 'string' ? d.args_sha256 : null,
    args_match: typeof d.args_match === 'boolean' ? d.args_match : null,
    allowed: typeof d.allowed === 'boolean' ? d.allowed : null,
    detail: typeof d.detail === 'string' ? d.detail : null,
  };
}

const EXECUTION_KEYS = [
  'outcome',
  'at',
  'by',
  'args_sha256',
  'args_match',
  'allowed',
  'detail',
] as const satisfies readonly (keyof ExecutionView)[];

/** The request fields a CSV line shows before its execution cells, and after them. */
export const CSV_HEAD_FIELDS: readonly ExportField[] = ['id', 'status', 'tool_name', 'tool_args', 'approved_args'];
export const CSV_TAIL_FIELDS: readonly ExportField[] = [
  'prompt',
  'options',
  'agent_id',
  'user_id',
  'session_id',
  'tool_call_id',
  'agent_kind',
  'context',
  'metadata',
  'summary',
  'channels',
  'approvers',
  'required_approvals',
  'on_timeout',
  'idempotency_key',
  'args_sha256',
  'filed_by',
  'filed_by_person',
  'created_at',
  'expires_at',
  'updated_at',
  'responded_at',
  'responded_by',
  'responded_by_person',
  'on_behalf_of',
  'responded_via',
  'decision_option',
  'reason',
  'allowed',
];

/** The CSV header line. */
export const CSV_HEADER = `${[...CSV_HEAD_FIELDS, ...EXECUTION_KEYS.map((k) => `execution_${k}`), ...CSV_TAIL_FIELDS].join(',')}\n`;

/** One CSV cell: quoted when needed; a leading `= + - @` is defused so spreadsheets do not run tool arguments as formulas. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return csvText(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** {@link csvCell} of a value's text (an {@link ExportRow}'s JSON fields are already their `JSON.stringify` text). */
function csvText(text: string): string {
  const first = text.charCodeAt(0);
  // = + - @ \t \r
  if (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const NEEDS_QUOTES = /[",\n\r]/;

/**
 * One exported line in three parts: its request's id (to find its receipt), the text before the execution part, and
 * the text after it, newline included. The line is `head + executionText(...) + tail`. Elements past the third are the
 * store's own (SQLite's raw rows carry the keyset's `created_at` there) and are not read.
 */
export type ExportLine = [id: string, head: string, tail: string, ...store: unknown[]];

/** The text an NDJSON line opens each field with (`{"id":`, `,"status":`…), and what follows the fields. */
export const NDJSON_KEYS = EXPORT_FIELDS.map((field, i) => `${i === 0 ? '{' : ','}${JSON.stringify(field)}:`);
export const NDJSON_HEAD_END = ',"verdict_token":null,"execution":';

/** `text` as a SQL string literal (SQLite and PostgreSQL alike), for the stores that render lines in SQL. */
export const sqlLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;
const NDJSON_TAIL = '}\n';

const FIELD_INDEX = new Map<ExportField, number>(EXPORT_FIELDS.map((field, i) => [field, i]));
const CSV_HEAD = CSV_HEAD_FIELDS.map((f) => FIELD_INDEX.get(f)!);
const CSV_TAIL = CSV_TAIL_FIELDS.map((f) => FIELD_INDEX.get(f)!);
const NDJSON_IS_JSON = EXPORT_FIELDS.map((field) => EXPORT_JSON_FIELDS.has(field));

/**
 * `row` as a line of `format` (see {@link ExportLine}). Its parts are joined from arrays, not appended to one by one:
 * a page's lines live while the page is written, long enough to reach V8's old space, and a string built by `+=` is
 * a tree of one object per piece there (a CSV page's collection took 41 % of the export's CPU, against 11 % before).
 */
export function lineOf(row: ExportRow, format: ExportFormat): ExportLine {
  const id = row[0] as string;
  if (format === 'csv') {
    // The head's last cell and the tail's first are empty: they give the commas around the execution cells.
    const head = CSV_HEAD.map((i) => csvCellOf(row[i]));
    head.push('');
    const tail = CSV_TAIL.map((i) => csvCellOf(row[i]));
    tail.unshift('');
    return [id, head.join(','), `${tail.join(',')}\n`];
  }
  // `JSON.stringify` of the request as the API shows it plus `execution`, written from the flat row.
  const parts: string[] = [];
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    // As JSON.stringify leaves out an undefined property (a request built in memory may lack an optional field).
    if (value === undefined) continue;
    parts.push(
      NDJSON_KEYS[i]!,
      NDJSON_IS_JSON[i] ? (value === null ? 'null' : (value as string)) : JSON.stringify(value),
    );
  }
  parts.push(NDJSON_HEAD_END);
  return [id, parts.join(''), NDJSON_TAIL];
}

function csvCellOf(value: ExportRow[number] | undefined): string {
  return value === null || value === undefined ? '' : csvText(String(value));
}

const NO_EXECUTION: Record<ExportFormat, string> = { csv: EXECUTION_KEYS.map(() => '').join(','), ndjson: 'null' };

/** The execution part of a line of `format`: its cells (CSV) or its JSON (NDJSON). */
export function executionText(execution: ExecutionView | null, format: ExportFormat): string {
  if (!execution) return NO_EXECUTION[format];
  return format === 'csv' ? EXECUTION_KEYS.map((k) => csvCell(execution[k])).join(',') : JSON.stringify(execution);
}

/** A page of an export: its lines, newest first, and the latest execution receipt of those that have one, by request id. */
export interface ExportPage {
  lines: ExportLine[];
  receipts: ReadonlyMap<string, ConfirmationEvent>;
}

/**
 * Export pages of `size` rows from whole requests (`scan`) and a per-page receipts read: how a store without a
 * cheaper way (SQLite's query for several people) implements `exportPages`.
 */
export async function* exportPagesOf(
  requests: AsyncIterable<ConfirmationRequest>,
  receiptsOf: (ids: readonly string[]) => Promise<ConfirmationEvent[]>,
  format: ExportFormat,
  size = 500,
): AsyncIterable<ExportPage> {
  let page: ConfirmationRequest[] = [];
  const flush = async (): Promise<ExportPage> => {
    const lines = page.map((r) => lineOf(exportRowOf(r), format));
    const receipts = receiptsById(await receiptsOf(page.map((r) => r.id)));
    page = [];
    return { lines, receipts };
  };
  for await (const request of requests) {
    page.push(request);
    if (page.length >= size) yield await flush();
  }
  if (page.length > 0) yield await flush();
}
