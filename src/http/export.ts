/**
 * @module http/export
 * Streams the audit query as CSV or NDJSON, row by row with back-pressure, so exporting a million rows needs no more
 * memory than one page.
 */
import type { Response } from 'express';
import { once } from 'node:events';
import { toApiRequest, type ApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';

const CSV_COLUMNS: (keyof ApiRequest)[] = [
  'id', 'status', 'tool_name', 'tool_args', 'approved_args', 'prompt', 'options', 'agent_id', 'user_id', 'session_id',
  'tool_call_id', 'metadata', 'channels', 'approvers', 'required_approvals', 'on_timeout', 'idempotency_key',
  'args_sha256', 'created_at', 'expires_at', 'updated_at', 'responded_at', 'responded_by', 'responded_via',
  'decision_option', 'reason', 'allowed',
];

/** One CSV cell: quoted when needed; a leading `= + - @` is defused so spreadsheets do not run tool arguments as formulas. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Writes every request of `rows` to `res` in `format`. */
export async function streamExport(res: Response, rows: AsyncIterable<ConfirmationRequest>, format: 'csv' | 'ndjson'): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  res.status(200);
  res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  res.setHeader('content-disposition', `attachment; filename="tollgate-requests-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`);
  const write = async (chunk: string) => {
    if (!res.write(chunk)) await once(res, 'drain');
  };
  if (format === 'csv') await write(`${CSV_COLUMNS.join(',')}\n`);
  for await (const request of rows) {
    if (res.destroyed) return;
    const api = toApiRequest(request);
    await write(format === 'csv' ? `${CSV_COLUMNS.map((c) => csvCell(api[c])).join(',')}\n` : `${JSON.stringify(api)}\n`);
  }
  res.end();
}
