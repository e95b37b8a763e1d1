/**
 * @module http/export
 * Streams the audit query as CSV or NDJSON, a page at a time with back-pressure, so exporting a million rows needs no more
 * memory than one page. Each row shows proposed (`tool_args`), approved (`approved_args`, or the proposed ones when
 * approved unedited) and executed (the latest receipt: `executed` / `execution_failed`) side by side.
 */
import type { Response } from 'express';
import {
  CSV_HEADER,
  executionOf,
  executionText,
  type ExecutionView,
  type ExportFormat,
  type ExportPage,
} from '../requests/export-lines.js';
import type { ApiRequest } from '../requests/serialize.js';

/** A request as exported: the API's fields plus `execution` (null when no receipt was recorded). */
export type ExportedRequest = ApiRequest & { execution: ExecutionView | null };

/**
 * Characters written at once. A page's text in one string (~0.9 MB of NDJSON) is a large object to V8, kept until a
 * full mark-compact: the gateway's RSS grew ~60 MB over 200,000 rows. Strings under V8's large-object size (128 KB)
 * die young instead.
 */
const CHUNK = 64 * 1024;

/** Where an export goes: an HTTP response, or the CLI's stdout. */
export type ExportSink = NodeJS.WritableStream & { destroyed?: boolean };

/** Writes every request of `pages` to `res` in `format`, each with its latest execution receipt. */
export async function streamExport(
  res: Response,
  pages: AsyncIterable<ExportPage>,
  format: ExportFormat,
): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  res.status(200);
  res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  res.setHeader(
    'content-disposition',
    `attachment; filename="tollgate-requests-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`,
  );
  if (await writeExport(res, pages, format)) res.end();
}

/**
 * The export's body, a page at a time (`ConfirmationStore.exportPages`) with back-pressure (a write the sink cannot
 * take yet waits for `drain`), so memory stays at one page whatever the row count
 * (`test/integration/history/export-memory.test.ts`). Resolves false when the sink went away (a client that hung up)
 * before the end.
 */
export async function writeExport(
  out: ExportSink,
  pages: AsyncIterable<ExportPage>,
  format: ExportFormat,
): Promise<boolean> {
  const none = executionText(null, format);
  if (format === 'csv') await write(out, CSV_HEADER);
  for await (const { lines, receipts } of pages) {
    if (out.destroyed) return false;
    let chunk = '';
    for (const [id, head, tail] of lines) {
      const receipt = receipts.size === 0 ? undefined : receipts.get(id);
      chunk += head + (receipt ? executionText(executionOf([receipt]), format) : none) + tail;
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
