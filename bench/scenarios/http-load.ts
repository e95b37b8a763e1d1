/**
 * @module bench/scenarios/http-load
 * Client tasks shared by the floor and the gateway: sequential round trips and a closed loop of POSTs. The same code
 * loads the bare node:http server and the gateway, so the two figures compare like with like.
 */
import { BenchHttp, closedLoop } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { round, summarize } from '../stats.js';

/** Parameters of {@link rtt}. */
export interface RttParams {
  url: string;
  token?: string | null;
  path: string;
  count: number;
  warmup: number;
}

/** Sequential GET round trips on one keep-alive connection: latency percentiles in ms. */
const rtt: ClientTask = async (raw) => {
  const p = raw as unknown as RttParams;
  const http = new BenchHttp(p.url, p.token ?? null, 1);
  try {
    for (let i = 0; i < p.warmup; i++) await http.send('GET', p.path);
    const samples: number[] = [];
    for (let i = 0; i < p.count; i++) {
      const started = performance.now();
      const res = await http.send('GET', p.path);
      if (res.status !== 200) throw new Error(`GET ${p.path} -> ${res.status}: ${res.body.slice(0, 200)}`);
      samples.push(res.doneAt - started);
    }
    return summarize(samples);
  } finally {
    http.close();
  }
};

/** Parameters of {@link postLoop}. */
export interface PostLoopParams {
  url: string;
  token?: string | null;
  path: string;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The JSON body; `{i}` in string values is replaced by a unique number. */
  body: Record<string, unknown>;
  /** The status that counts as a success (201). */
  okStatus: number;
}

/** `concurrency` clients POSTing back to back: successful responses per second, latency, and error counts. */
const postLoop: ClientTask = async (raw, ask) => {
  const p = raw as unknown as PostLoopParams;
  const http = new BenchHttp(p.url, p.token ?? null, p.concurrency);
  const template = JSON.stringify(p.body);
  let seq = 0;
  const once = async (latencies?: number[]) => {
    const started = performance.now();
    const res = await http.send('POST', p.path, template.replaceAll('{i}', String(seq++)));
    latencies?.push(res.doneAt - started);
    return res.status;
  };
  try {
    await closedLoop(p.concurrency, p.warmupMs, () => once());
    const latencies: number[] = [];
    await ask('mark', 'start');
    const run = await closedLoop(p.concurrency, p.durationMs, () => once(latencies));
    await ask('mark', 'end');
    const ok = run.byStatus[String(p.okStatus)] ?? 0;
    return {
      rps: round(ok / (run.elapsedMs / 1000), 0),
      completed: run.completed,
      by_status: run.byStatus,
      latency_ms: summarize(latencies),
    };
  } finally {
    http.close();
  }
};

/** The shared client tasks. */
export const clientTasks: Record<string, ClientTask> = { rtt, postLoop };
