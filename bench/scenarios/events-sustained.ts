/**
 * @module bench/scenarios/events-sustained
 * `events.sustained_*`: whether a webhook sink keeps up with a steady load (issue 47). Requests are filed at a fixed
 * rate (open loop: the load does not slow down when the gateway does) of 1,000 a second for 30 s after a 5 s warm-up,
 * on a fresh gateway with one sink (the scenario's receiver).
 *
 * - `events.sustained_lag_ms` — for each `created` event of a request filed in the measured window: its arrival at
 *   the receiver less its own `time` (the commit, wall clock in whole ms). Goal: p99 ≤ 1 s.
 * - `events.sustained_backlog_growth_per_s` — the slope (least squares) of the sink's backlog
 *   (`tollgate_event_sink_backlog` on /metrics, read every 500 ms) over the window, in events per second: about 0 when
 *   the sink keeps up, the rate it falls behind at when not. Goal: ≤ 10 /s (1 % of the load). `…_backlog_max`: its peak.
 * - `events.sustained_creates_per_s` (what the load reached: below 1,000 the figures describe a lighter load),
 *   `…_delivered_per_s`, `…_posts_per_s` (POSTs the receiver got: the batches), `…_cpu_ms_per_request` (the gateway's,
 *   over the window) and `…_cpu_ms_per_request_delivered` (from the window's start until its last event arrived: what
 *   a create costs with its delivery, even when the sink delivers late).
 */
import { freshGateway, type BenchContext } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { cpuMarks, cpuTicks } from '../proc.js';
import { round, sleep, summarize } from '../stats.js';
import { CREATE_BODY } from './create-rps.js';
import type { Receiver } from './events-receiver.js';

/** Parameters of {@link paced}. */
export interface PacedParams {
  url: string;
  token: string;
  /** Requests per second. */
  rate: number;
  warmupMs: number;
  durationMs: number;
  /** At most this many in flight; a request due while they all are is counted as missed, not queued. */
  maxInFlight: number;
  /** The JSON body; `{i}` in string values becomes a unique number. */
  body: Record<string, unknown>;
  path: string;
}

/** What {@link paced} returns. */
export interface PacedResult {
  sent: number;
  missed: number;
  by_status: Record<string, number>;
  per_s: number;
}

/**
 * Sends POSTs at `rate` a second (open loop) for the warm-up, marks `start`, for `durationMs`, marks `end`, and waits
 * for those in flight. Shared with the soak.
 */
export async function pacedPosts(
  p: PacedParams,
  ask: (what: 'mark', payload: string) => Promise<unknown>,
  each?: (status: number, body: string) => void,
): Promise<PacedResult> {
  const http = new BenchHttp(p.url, p.token, p.maxInFlight);
  const template = JSON.stringify(p.body);
  const byStatus: Record<string, number> = {};
  const flights = new Set<Promise<void>>();
  let seq = 0;
  let missed = 0;
  let sent = 0;
  const once = () => {
    const flight = http.send('POST', p.path, template.replaceAll('{i}', String(seq++))).then(
      (res) => {
        byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
        each?.(res.status, res.body);
      },
      () => void (byStatus.error = (byStatus.error ?? 0) + 1),
    );
    flights.add(flight);
    void flight.finally(() => flights.delete(flight));
  };
  const run = async (ms: number, counting: boolean) => {
    const started = performance.now();
    let due = 0;
    for (let elapsed = 0; elapsed < ms; elapsed = performance.now() - started) {
      for (const should = Math.floor((elapsed * p.rate) / 1000); due < should; due++) {
        if (flights.size >= p.maxInFlight) missed += counting ? 1 : 0;
        else {
          once();
          if (counting) sent++;
        }
      }
      await sleep(2);
    }
  };
  try {
    await run(p.warmupMs, false);
    await ask('mark', 'start');
    const started = performance.now();
    await run(p.durationMs, true);
    const elapsed = performance.now() - started;
    await ask('mark', 'end');
    await Promise.all(flights);
    return { sent, missed, by_status: byStatus, per_s: round(sent / (elapsed / 1000), 0) };
  } finally {
    http.close();
  }
}

const paced: ClientTask = async (raw, ask) => pacedPosts(raw as unknown as PacedParams, ask);

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { paced };

/** The sink's backlog on `/metrics` (0 when the gauge is absent). */
async function backlogOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^tollgate_event_sink_backlog\{[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Least-squares slope of `y` over `x`. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx ? points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx : 0;
}

/** The `events.sustained_*` figures, on a fresh gateway with the sink `env` names, delivering to `receiver`. */
export async function sustainedFigures(
  ctx: BenchContext,
  env: Record<string, string>,
  receiver: Receiver,
): Promise<Record<string, unknown>> {
  const gateway = await freshGateway(ctx, 'events-sustained', env);
  const createdBefore = receiver.created.size;
  const cpu = cpuMarks(gateway.pid);
  const durationMs = ctx.quick ? 5000 : 30_000;
  const samples: { x: number; y: number }[] = [];
  let window: { start: number; end: number; received: number; posts: number } = {
    start: 0,
    end: 0,
    received: 0,
    posts: 0,
  };
  let sampling: Promise<void> | null = null;
  let startTicks = 0;
  let stopped = false;
  try {
    const load = await ctx.client.run<PacedResult>(
      'events-sustained',
      'paced',
      {
        url: gateway.url,
        token: BENCH_TOKEN,
        rate: 1000,
        warmupMs: ctx.quick ? 1000 : 5000,
        durationMs,
        maxInFlight: 256,
        body: CREATE_BODY,
        path: '/v1/requests',
      },
      {
        mark: (payload) => {
          if (payload === 'start') {
            startTicks = cpuTicks(gateway.pid);
            window = { start: Date.now(), end: 0, received: receiver.received, posts: receiver.posts };
            sampling = (async () => {
              while (!stopped) {
                samples.push({ x: (Date.now() - window.start) / 1000, y: await backlogOf(gateway.url) });
                await sleep(500);
              }
            })();
          } else {
            window = {
              ...window,
              end: Date.now(),
              received: receiver.received - window.received,
              posts: receiver.posts - window.posts,
            };
            stopped = true;
          }
          return cpu.mark(payload);
        },
      },
    );
    await sampling;
    const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
    if (errors.length || load.missed)
      ctx.log(
        `events sustained: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}, ${load.missed} requests not sent (all ${256} in flight)`,
      );
    // Every `created` event should arrive; wait for the stragglers (their lag counts) up to 30 s.
    const filed = load.by_status['201'] ?? 0;
    for (let waited = 0; receiver.created.size - createdBefore < filed && waited < 30_000; waited += 100)
      await sleep(100);
    const undelivered = filed - (receiver.created.size - createdBefore);
    const ticksDelivered = cpuTicks(gateway.pid);
    if (undelivered)
      ctx.log(`events sustained: ${undelivered} of ${filed} created events had not arrived 30 s after the load`);
    const lags = [...receiver.created.values()]
      .filter((a) => a.time >= window.start && a.time <= window.end)
      .map((a) => a.sinceCommit);
    const seconds = (window.end - window.start) / 1000;
    const lag = summarize(lags);
    return {
      sustained_creates_per_s: load.per_s,
      sustained_lag_ms: { p50: lag.p50, p99: lag.p99, max: lag.max, n: lag.n },
      sustained_backlog_growth_per_s: round(slope(samples), 1),
      sustained_backlog_max: Math.max(0, ...samples.map((s) => s.y)),
      sustained_delivered_per_s: round(window.received / seconds, 0),
      sustained_posts_per_s: round(window.posts / seconds, 0),
      sustained_cpu_ms_per_request: round(cpu.msPer(load.sent), 3),
      sustained_cpu_ms_per_request_delivered: round(((ticksDelivered - startTicks) * 10) / load.sent, 3),
      sustained_undelivered: undelivered,
    };
  } finally {
    stopped = true;
    await gateway.stop(5000);
  }
}
