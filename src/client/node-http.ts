/**
 * @module client/node-http
 * One JSON POST to the gateway over `node:http` / `node:https`, for a command that must start fast:
 * `tollgate claude-hook` runs as a fresh process per tool call, and the first call of the global `fetch` loads undici
 * (~50 ms here against ~15 ms for `node:http`, round trip included). Failures are the {@link GateClientError}s
 * {@link GateClient} throws, with the same words, so callers branch on `status` and `retryable` alike.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describeError } from '../errors.js';
import type { GatewayConnection } from './connection.js';
import { GateClientError, problemFromText } from './errors.js';

/** A 2xx answer: its status, headers and body text. */
export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * POSTs `body` (JSON text) to `url` with the connection's bearer token. Resolves with a 2xx answer; rejects with a
 * {@link GateClientError}: the problem+json of any other status, or status 0 when no answer came within `timeoutMs`.
 */
export async function postJson(connection: GatewayConnection, url: URL, body: string, timeoutMs: number): Promise<PostAnswer> {
  // getBuiltinModule, not import(): in the CommonJS hook bundle an import() would start the ES module loader (~7 ms).
  const transport = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const unreachable = (error: unknown) => new GateClientError(`cannot reach the gateway at ${connection.url}: ${describeError(error)}`, 0, null, { cause: error });
  return new Promise<PostAnswer>((resolve, reject) => {
    const request = transport.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${connection.token}`,
        accept: 'application/json',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(unreachable(error));
    };
    request.on('error', fail);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', fail); // the connection was cut mid-answer (a later resolve or reject is a no-op)
      response.on('end', () => {
        clearTimeout(timer);
        const status = response.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        if (status >= 200 && status < 300) {
          resolve({ status, headers: response.headers, body: text });
          return;
        }
        const problem = problemFromText(status, response.statusMessage ?? '', text);
        reject(new GateClientError(problem.detail, status, problem));
      });
    });
    request.end(body);
  });
}
