/**
 * @module client/http1-parse
 * Reads one HTTP/1.1 answer from the bytes received so far, for {@link postJson}'s bare-socket client: the status
 * line, the headers, and the body framed as RFC 9112 §6.3 says (chunked, else `content-length`, else up to the end
 * of the connection). Interim 1xx answers (`100 Continue`, `103 Early Hints`) are skipped, as node:http does.
 */

/** One final answer: its status, status text, headers (lower-case names, repeated ones joined by ", ") and body text. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');
/** Larger heads than node:http accepts by default (16 KiB) are not an answer from the gateway. */
const MAX_HEAD_BYTES = 16 * 1024;

/** A malformed answer: node:http's word for it, so the hook's message reads as before. */
function parseError(reason: string): Error {
  return Object.assign(new Error(`Parse Error: ${reason}`), { code: 'HPE_INVALID_CONSTANT' });
}

/**
 * The answer in `data` once it is complete, or `null` while more is to come. `ended` says the connection closed:
 * a body framed by the connection's end is complete then, and any other incomplete answer stays `null`.
 * Throws when `data` is not an HTTP/1.x answer.
 */
export function parseAnswer(data: Buffer, ended: boolean): HttpAnswer | null {
  let start = 0;
  for (;;) {
    const headEnd = data.indexOf(HEAD_END, start);
    if (headEnd < 0) {
      if (data.length - start > MAX_HEAD_BYTES) throw parseError('header overflow');
      return null;
    }
    const lines = data.toString('latin1', start, headEnd).split('\r\n');
    const statusLine = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
    if (!statusLine) throw parseError('not an HTTP/1.1 status line');
    const status = Number(statusLine[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw parseError('bad header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const bodyStart = headEnd + HEAD_END.length;
    if (status >= 100 && status < 200) {
      start = bodyStart; // an interim answer has no body: the final one follows
      continue;
    }
    const body = readBody(data.subarray(bodyStart), headers, status, ended);
    return body === null ? null : { status, statusText: statusLine[2] ?? '', headers, body: body.toString('utf8') };
  }
}

function readBody(rest: Buffer, headers: Record<string, string>, status: number, ended: boolean): Buffer | null {
  if (status === 204 || status === 304) return Buffer.alloc(0);
  if (/(?:^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '')) return dechunk(rest);
  const length = headers['content-length'];
  if (length !== undefined) {
    if (!/^\d+$/.test(length)) throw parseError('bad content-length');
    const size = Number(length);
    return rest.length >= size ? rest.subarray(0, size) : null;
  }
  return ended ? rest : null;
}

/** The body of a chunked transfer once its last (zero-size) chunk and the trailers' end are in; `null` before. */
function dechunk(rest: Buffer): Buffer | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf(LINE_END, at);
    if (lineEnd < 0) return null;
    const size = Number.parseInt(rest.toString('latin1', at, lineEnd).split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) throw parseError('bad chunk size');
    if (size === 0) {
      // The last chunk's line ends where its trailers (none, or some that matter not here) begin: an empty line ends them.
      return rest.indexOf(HEAD_END, lineEnd) >= 0 ? Buffer.concat(parts) : null;
    }
    const dataStart = lineEnd + LINE_END.length;
    if (rest.length < dataStart + size + LINE_END.length) return null;
    parts.push(rest.subarray(dataStart, dataStart + size));
    at = dataStart + size + LINE_END.length;
  }
}
