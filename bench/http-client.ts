/**
 * @module bench/http-client
 * The load client's HTTP: node:http over keep-alive agents, bodies read as text (parsed only when asked), and
 * timestamps from `performance.now()`. Used inside the load-client process only.
 */
import { Agent, request as httpRequest } from 'node:http';

/** One finished HTTP exchange. */
export interface HttpResult {
  status: number;
  body: string;
  /** `performance.now()` when the last byte of the response arrived. */
  doneAt: number;
}

/** A keep-alive HTTP client bound to one base URL and bearer token. */
export class BenchHttp {
  readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, token: string | null, maxSockets = 256) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' });
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  /** Sends `method path` with an optional JSON body (a string is sent as is). */
  send(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<HttpResult> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string | number> = { ...this.headers, ...extraHeaders };
    if (payload !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, doneAt: performance.now() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Sends and parses the JSON answer; throws unless the status is `expected` (one or several). */
  async json<T>(
    method: string,
    path: string,
    body?: unknown,
    expected: number | number[] = [200, 201],
  ): Promise<T & { doneAt: number }> {
    const res = await this.send(method, path, body);
    const ok = Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
    if (!ok) throw new Error(`${method} ${path} -> ${res.status}: ${res.body.slice(0, 300)}`);
    return Object.assign(JSON.parse(res.body) as object, { doneAt: res.doneAt }) as T & { doneAt: number };
  }

  /** Closes idle sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/** Runs `worker` on `concurrency` parallel loops until `durationMs` has passed; returns completions per status. */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  worker: (loop: number, i: number) => Promise<number>,
): Promise<{ completed: number; byStatus: Record<string, number>; elapsedMs: number }> {
  const byStatus: Record<string, number> = {};
  let completed = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const status = await worker(loop, i);
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        completed++;
      }
    }),
  );
  return { completed, byStatus, elapsedMs: performance.now() - started };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight; resolves with the results in order. */
export async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}
