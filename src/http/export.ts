/**
 * @module http/export
 * Streams the audit query as CSV or NDJSON, a page at a time with back-pressure, so exporting a million rows needs no more
 * memory than one page. Each row shows proposed (`tool_args`), approved (`approved_args`, or the proposed ones when
 * approved unedited) and executed (the latest receipt: `executed` / `execution_failed`) side by side.
 */
import type { Response } from 'express';
import { EXPORT_FIELDS, EXPORT_JSON_FIELDS, type ExportPage, type ExportRow } from '../requests/export-rows.js';
import type { ApiRequest } from '../requests/serialize.js';
import type { ConfirmationEvent } from '../requests/types.js';

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

/** A request as exported: the API's fields plus `execution` (null when no receipt was recorded). */
export type ExportedRequest = ApiRequest & { execution: ExecutionView | null };

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

const CSV_COLUMNS: (keyof ApiRequest | `execution_${keyof ExecutionView}`)[] = [
  'id', 'status', 'tool_name', 'tool_args', 'approved_args', 'execution_outcome', 'execution_at', 'execution_by',
  'execution_args_sha256', 'execution_args_match', 'execution_allowed', 'execution_detail', 'prompt', 'options',
  'agent_id', 'user_id', 'session_id', 'tool_call_id', 'metadata', 'channels', 'approvers', 'required_approvals',
  'on_timeout', 'idempotency_key', 'args_sha256', 'filed_by', 'filed_by_person', 'created_at', 'expires_at', 'updated_at', 'responded_at',
  'responded_by', 'responded_by_person', 'responded_via', 'decision_option', 'reason', 'allowed',
];

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
 * Each CSV column, resolved once: the index of its field in an {@link ExportRow}, or the execution field it shows.
 */
const CSV_CELLS = CSV_COLUMNS.map((column): number | keyof ExecutionView => {
  if (column.startsWith('execution_')) return column.slice('execution_'.length) as keyof ExecutionView;
  const index = (EXPORT_FIELDS as readonly string[]).indexOf(column);
  if (index < 0) throw new Error(`CSV column ${column} is not an export field`);
  return index;
});

function csvLine(row: ExportRow, execution: ExecutionView | null): string {
  let line = '';
  for (let i = 0; i < CSV_CELLS.length; i++) {
    const cell = CSV_CELLS[i]!;
    const value = typeof cell === 'number' ? row[cell] : execution?.[cell];
    if (i > 0) line += ',';
    if (value !== null && value !== undefined) line += csvText(String(value));
  }
  return `${line}\n`;
}

/** Each field's key as it opens in an NDJSON line (`{"id":`, `,"status":`…). */
const NDJSON_KEYS = EXPORT_FIELDS.map((field, i) => `${i === 0 ? '{' : ','}${JSON.stringify(field)}:`);
const NDJSON_IS_JSON = EXPORT_FIELDS.map((field) => EXPORT_JSON_FIELDS.has(field));

/** `JSON.stringify` of the request as the API shows it plus `execution`, written from the flat row. */
function ndjsonLine(row: ExportRow, execution: ExecutionView | null): string {
  let line = '';
  for (let i = 0; i < row.length; i++) {
    const value = row[i];
    // As JSON.stringify leaves out an undefined property (a request built in memory may lack an optional field).
    if (value === undefined) continue;
    line += NDJSON_KEYS[i]! + (NDJSON_IS_JSON[i] ? (value === null ? 'null' : (value as string)) : JSON.stringify(value));
  }
  return `${line},"verdict_token":null,"execution":${execution ? JSON.stringify(execution) : 'null'}}\n`;
}

/**
 * Characters written at once. A page's text in one string (~0.9 MB of NDJSON) is a large object to V8, kept until a
 * full mark-compact: the gateway's RSS grew ~60 MB over 200,000 rows. Strings under V8's large-object size (128 KB)
 * die young instead.
 */
const CHUNK = 64 * 1024;

/** Where an export goes: an HTTP response, or the CLI's stdout. */
export type ExportSink = NodeJS.WritableStream & { destroyed?: boolean };

/** Writes every request of `pages` to `res` in `format`, each with its latest execution receipt. */
export async function streamExport(res: Response, pages: AsyncIterable<ExportPage>, format: 'csv' | 'ndjson'): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  res.status(200);
  res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  res.setHeader('content-disposition', `attachment; filename="tollgate-requests-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`);
  if (await writeExport(res, pages, format)) res.end();
}

/**
 * The export's body, a page at a time (`ConfirmationStore.exportPages`) with back-pressure (a write the sink cannot
 * take yet waits for `drain`), so memory stays at one page whatever the row count
 * (`test/integration/history/export-memory.test.ts`). Resolves false when the sink went away (a client that hung up)
 * before the end.
 */
export async function writeExport(out: ExportSink, pages: AsyncIterable<ExportPage>, format: 'csv' | 'ndjson'): Promise<boolean> {
  const line = format === 'csv' ? csvLine : ndjsonLine;
  if (format === 'csv') await write(out, `${CSV_COLUMNS.join(',')}\n`);
  for await (const { rows, receipts } of pages) {
    if (out.destroyed) return false;
    let chunk = '';
    for (const row of rows) {
      const receipt = receipts.size === 0 ? undefined : receipts.get(row[0] as string);
      chunk += line(row, receipt ? executionOf([receipt]) : null);
      if (chunk.length >= CHUNK) {
        await write(out, chunk);
        chunk = '';
      }
    }
    if (chunk) await write(out, chunk);
  }
  return !out.destroyed;
}

/** Writes `chunk`; when the sink's buffer is full, waits until it drains (or closes: a client that hung up). */
async function write(out: ExportSink, chunk: string): Promise<void> {
  if (out.destroyed || out.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}
