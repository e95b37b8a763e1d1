/**
 * @module http/export
 * Streams the audit query as CSV or NDJSON, a page at a time with back-pressure, so exporting a million rows needs no more
 * memory than one page. Each row shows proposed (`tool_args`), approved (`approved_args`, or the proposed ones when
 * approved unedited) and executed (the latest receipt: `executed` / `execution_failed`) side by side.
 */
import type { Response } from 'express';
import { toApiRequest, type ApiRequest } from '../requests/serialize.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';

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

/**
 * Rows rendered and written together: their receipts are one read, their text one `write`. A page of the stores' scan
 * (500), so a million rows are 2,000 reads and writes instead of a million of each.
 */
const PAGE = 500;

/** One CSV cell: quoted when needed; a leading `= + - @` is defused so spreadsheets do not run tool arguments as formulas. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Each CSV column's value of an exported row, in column order (resolved once, not per row and cell). */
const CSV_CELLS = CSV_COLUMNS.map((column): ((row: ExportedRequest) => unknown) => {
  if (!column.startsWith('execution_')) return (row) => row[column as keyof ApiRequest];
  const field = column.slice('execution_'.length) as keyof ExecutionView;
  return (row) => row.execution?.[field];
});

function csvLine(row: ExportedRequest): string {
  let line = csvCell(CSV_CELLS[0]!(row));
  for (let i = 1; i < CSV_CELLS.length; i++) line += `,${csvCell(CSV_CELLS[i]!(row))}`;
  return `${line}\n`;
}

/** Options of {@link streamExport}. */
export interface ExportOptions {
  /**
   * The latest receipt of each of a page of requests (`ConfirmationStore.receiptsOf`): one read per page, instead of
   * every event of every row.
   */
  receiptsOf(ids: readonly string[]): Promise<ConfirmationEvent[]>;
}

/** Where an export goes: an HTTP response, or the CLI's stdout. */
export type ExportSink = NodeJS.WritableStream & { destroyed?: boolean };

/** Writes every request of `rows` to `res` in `format`, each with its latest execution receipt. */
export async function streamExport(res: Response, rows: AsyncIterable<ConfirmationRequest>, format: 'csv' | 'ndjson', options: ExportOptions): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  res.status(200);
  res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  res.setHeader('content-disposition', `attachment; filename="tollgate-requests-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`);
  if (await writeExport(res, rows, format, options)) res.end();
}

/**
 * The export's body, a page at a time with back-pressure (a write the sink cannot take yet waits for `drain`), so
 * memory stays at one page whatever the row count (`test/integration/history/export-memory.test.ts`). Resolves false
 * when the sink went away (a client that hung up) before the end.
 */
export async function writeExport(out: ExportSink, rows: AsyncIterable<ConfirmationRequest>, format: 'csv' | 'ndjson', options: ExportOptions): Promise<boolean> {
  const flush = async (page: ConfirmationRequest[]) => {
    if (page.length === 0) return;
    const receipts = new Map<string, ConfirmationEvent>();
    for (const e of await options.receiptsOf(page.map((r) => r.id))) receipts.set(e.requestId, e);
    let chunk = '';
    for (const request of page) {
      const receipt = receipts.get(request.id);
      const row = toApiRequest(request) as ExportedRequest;
      row.execution = receipt ? executionOf([receipt]) : null;
      chunk += format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`;
    }
    await write(out, chunk);
  };
  if (format === 'csv') await write(out, `${CSV_COLUMNS.join(',')}\n`);
  let page: ConfirmationRequest[] = [];
  for await (const request of rows) {
    if (out.destroyed) return false;
    page.push(request);
    if (page.length >= PAGE) {
      await flush(page);
      page = [];
    }
  }
  await flush(page);
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
