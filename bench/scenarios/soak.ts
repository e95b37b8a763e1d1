/**
 * @module bench/scenarios/soak
 * `npm run bench -- --soak [--soak-minutes N]` (issue 47): whether a gateway stays the same over a long steady load,
 * run on its own (never part of the usual bench) and merged into bench/results.json (bench/scenarios/soak-results.ts).
 * First the create capacity is measured (the `create_rps` closed loop, 64 clients, on a gateway of its own), then the
 * capacity of the mix below (in creates/s; both in bench/scenarios/soak-capacity.ts); then a fresh gateway takes half
 * of the mix's capacity for N minutes (default 20) after a warm-up of 30 s (or a quarter of a shorter run), an open
 * loop of creates, each with a part to play:
 *
 * - 6 in 10 park a long-poll (`?wait=30`) and are decided (approve or deny) 1–2 s later;
 * - 3 in 10 park a long-poll on a 3 s deadline and expire (the expiry job answers them);
 * - 1 in 10 is decided 1–2 s later with nobody waiting.
 *
 * Figures (under `soak`), with the edge = a quarter of the run (5 minutes of 20):
 * - `soak.rss_growth_pct` — the gateway's RSS (median of the samples every 5 s) over the last edge of the run against
 *   the edge after the first (minutes 15–20 against 5–10 of 20), in %. Goal ≤ 5 %. `soak.rss_slope_mb_per_min`: the
 *   least-squares slope of every sample after the first edge.
 * - `soak.p99_last_vs_first` — the creates' p99 latency in the last edge of the run against the first. Goal ≤ 1.25.
 *   `soak.decision_p99_last_vs_first`: the same for the decisions.
 * - `soak.create_ms.first` / `.last`, `soak.decision_ms.first` / `.last` (p50, p99, n), `soak.rss_mb` (after the edge,
 *   at the end), `soak.per_minute` (creates, p99 and RSS each minute), `soak.counts` (answers of each kind; every
 *   waiter must end approved, denied or expired), `soak.rate_per_s`, `soak.capacity_rps` (bare creates), `soak.mix_capacity_rps`, `soak.minutes`.
 */
import { freshGateway, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { rssMb } from '../proc.js';
import { round, sleep, summarize, type Percentiles } from '../stats.js';
import { CREATE_BODY } from './create-rps.js';
import { createCapacity, mixCapacity, ONE_CLIENT_ENV } from './soak-capacity.js';

/** Parameters of the `run` client task. */
interface SoakParams {
  url: string;
  token: string;
  rate: number;
  minutes: number;
  warmupMs: number;
}

/** Samples of one part of the run. */
class Window {
  readonly create: number[] = [];
  readonly decision: number[] = [];
}

const soakLoad: ClientTask = async (raw, ask) => {
  const p = raw as unknown as SoakParams;
  const api = new BenchHttp(p.url, p.token, 1024);
  const polls = new BenchHttp(p.url, p.token, 16_384);
  const durationMs = p.minutes * 60_000;
  const edgeMs = durationMs / 4;
  const first = new Window();
  const last = new Window();
  const minutes: { creates: number; create: number[] }[] = [];
  const counts: Record<string, number> = {};
  const count = (key: string) => void (counts[key] = (counts[key] ?? 0) + 1);
  let t0 = Number.POSITIVE_INFINITY;
  let creating = 0;
  let seq = 0;
  const windowOf = (at: number) =>
    at - t0 < 0
      ? null
      : at - t0 < edgeMs
        ? first
        : at - t0 >= durationMs - edgeMs && at - t0 < durationMs
          ? last
          : null;
  const one = async (i: number) => {
    const kind = i % 10 < 6 ? 'decided' : i % 10 < 9 ? 'expires' : 'unwatched';
    const body = JSON.stringify({
      ...CREATE_BODY,
      tool_args: { ...CREATE_BODY.tool_args, path: `/srv/app/config-${i}.yaml` },
      session_id: `soak-${i}`,
      timeout_s: kind === 'expires' ? 3 : 600,
    });
    const started = performance.now();
    creating++;
    const created = await api.send('POST', '/v1/requests', body).finally(() => creating--);
    const ms = created.doneAt - started;
    windowOf(started)?.create.push(ms);
    if (started >= t0 && started - t0 < durationMs) {
      const minute = (minutes[Math.floor((started - t0) / 60_000)] ??= { creates: 0, create: [] });
      minute.creates++;
      minute.create.push(ms);
    }
    if (created.status !== 201) return count(`create_${created.status}`);
    const { id } = JSON.parse(created.body) as { id: string };
    // Settled as it ends, not only when awaited below: a poll reset while the decision is still to come would
    // otherwise be an unhandled rejection, which ends the client.
    const waiting =
      kind === 'unwatched'
        ? null
        : polls.send('GET', `/v1/requests/${id}?wait=30`).then(
            (r) => r,
            (error: unknown) => error as Error,
          );
    if (kind !== 'expires') {
      await sleep(1000 + (i % 1000));
      const decidedAt = performance.now();
      const decision = await api.send('POST', `/v1/requests/${id}/decision`, {
        decision: i % 2 ? 'approve' : 'deny',
        approver: 'web:soak-approver',
        reason: 'soak',
      });
      windowOf(decidedAt)?.decision.push(decision.doneAt - decidedAt);
      if (decision.status !== 200) count(`decision_${decision.status}`);
    }
    const polled = await waiting;
    if (polled instanceof Error) count(`waiter_error_${(polled as NodeJS.ErrnoException).code ?? polled.message}`);
    else if (polled) count(`waiter_${(JSON.parse(polled.body) as { status: string }).status}`);
  };
  const flights = new Set<Promise<void>>();
  const run = async (ms: number) => {
    const started = performance.now();
    let due = 0;
    for (let elapsed = 0; elapsed < ms; elapsed = performance.now() - started) {
      for (const should = Math.floor((elapsed * p.rate) / 1000); due < should; due++) {
        // Only creates count toward the cap: a waiter holds its slot for seconds by design.
        if (creating >= 256) count('missed');
        else {
          const flight = one(seq++).catch((error: unknown) =>
            count(`error_${(error as NodeJS.ErrnoException).code ?? 'other'}`),
          );
          flights.add(flight);
          void flight.finally(() => flights.delete(flight));
        }
      }
      await sleep(2);
    }
  };
  try {
    await run(p.warmupMs);
    await ask('mark', 'start');
    t0 = performance.now();
    await run(durationMs);
    await ask('mark', 'end');
    await Promise.all(flights);
    const pair = (w: Window) => ({ create: summarize(w.create), decision: summarize(w.decision) });
    return {
      first: pair(first),
      last: pair(last),
      per_minute: minutes.map((m) => ({ creates: m.creates, p99: summarize(m.create).p99 })),
      counts,
    };
  } finally {
    api.close();
    polls.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { run: soakLoad };

/** The slope of the least-squares line through the points `[x, y]` (0 for fewer than two). */
function leastSquaresSlope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;

/** The soak (`--soak`, `--soak-minutes N`): see the module comment. */
export function soakScenario(minutes: number): Scenario {
  return {
    name: 'soak',
    modes: ['sqlite', 'bullmq', 'postgres'],
    async run(ctx) {
      const capacityRps = await createCapacity(ctx);
      const mixRps = await mixCapacity(ctx, capacityRps);
      const rate = Math.max(1, Math.round(mixRps / 2));
      ctx.log(`soak: bare create capacity ${capacityRps}/s, the mix's ${mixRps}/s; ${rate}/s for ${minutes} min`);
      const gateway = await freshGateway(ctx, 'soak', ONE_CLIENT_ENV);
      const rss: { s: number; mb: number }[] = [];
      let started = 0;
      let sampler: NodeJS.Timeout | null = null;
      try {
        const result = await ctx.client.run<{
          first: { create: Percentiles; decision: Percentiles };
          last: { create: Percentiles; decision: Percentiles };
          per_minute: { creates: number; p99: number }[];
          counts: Record<string, number>;
        }>(
          'soak',
          'run',
          { url: gateway.url, token: BENCH_TOKEN, rate, minutes, warmupMs: Math.min(30_000, minutes * 15_000) },
          {
            mark: (payload) => {
              if (payload === 'start') {
                started = Date.now();
                const sample = () => rss.push({ s: (Date.now() - started) / 1000, mb: rssMb(gateway.pid) });
                sample();
                sampler = setInterval(sample, 5000);
              } else if (sampler) clearInterval(sampler);
              return null;
            },
          },
        );
        const edgeS = (minutes * 60) / 4;
        const endS = minutes * 60;
        // An edge's worth of samples on each side (5 minutes of 20), as the p99s: RSS swings with the collector's
        // cycles (a 20-minute run's minute medians went 360–455 MB with no trend), and a minute on each side measured
        // where two cycles stood (9.2 % in that run) more than growth.
        const afterEdge = median(rss.filter((r) => r.s >= edgeS && r.s < 2 * edgeS).map((r) => r.mb));
        const atEnd = median(rss.filter((r) => r.s >= endS - edgeS).map((r) => r.mb));
        const slope = leastSquaresSlope(rss.filter((r) => r.s >= edgeS).map((r) => [r.s / 60, r.mb]));
        const ratio = (a: number, b: number) => round(a / b, 2);
        return {
          soak: {
            minutes,
            capacity_rps: capacityRps,
            mix_capacity_rps: mixRps,
            rate_per_s: rate,
            rss_growth_pct: round(((atEnd - afterEdge) / afterEdge) * 100, 1),
            rss_mb: { after_edge: round(afterEdge, 1), end: round(atEnd, 1) },
            rss_slope_mb_per_min: round(slope, 2),
            p99_last_vs_first: ratio(result.last.create.p99, result.first.create.p99),
            decision_p99_last_vs_first: ratio(result.last.decision.p99, result.first.decision.p99),
            create_ms: { first: pick(result.first.create), last: pick(result.last.create) },
            decision_ms: { first: pick(result.first.decision), last: pick(result.last.decision) },
            per_minute: result.per_minute.map((m, i) => ({
              ...m,
              rss_mb: round(median(rss.filter((r) => r.s >= i * 60 && r.s < (i + 1) * 60).map((r) => r.mb)), 1),
            })),
            counts: result.counts,
          },
        };
      } finally {
        if (sampler) clearInterval(sampler);
        await gateway.stop(5000);
      }
    },
  };
}

const pick = (p: Percentiles) => ({ p50: p.p50, p99: p.p99, n: p.n });
