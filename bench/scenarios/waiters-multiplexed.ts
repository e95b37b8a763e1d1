/**
 * @module bench/scenarios/waiters-multiplexed
 * `waiters_multiplexed_100k`: 100,000 pending requests (written into the file before the gateway starts) awaited by
 * one `GateClient.waitMany` in the load client — the verdict stream, 1,000 ids per connection, so 100 connections —
 * then all decided over the API. RSS is the gateway's (peak over the scenario, sampled every 100 ms); `delivered`
 * counts the verdicts that arrived (all of them, or the scenario failed).
 *
 * `delivery_ms` runs from sending a decision to its verdict arriving on the stream, for one id in 20 (5,000, spread
 * over every stream) decided one at a time while all 100,000 are awaited, as `decision_to_resume` times long-polls:
 * the next is sent once the last verdict arrived. The rest are then decided 16 at a time (`delivery_under_load_ms`,
 * info). Timing every decision under 16 concurrent deciders, as this scenario used to, measured the deciders' queue:
 * in a closed loop each decision waits for the 15 sent before it, so the figure was 16 / (decisions per second) —
 * 43 ms at 373 decisions/s — whatever the stream did (its own share, answer → verdict, was p99 1.7–3.8 ms).
 */
import { join } from 'node:path';
import type { Scenario } from '../context.js';
import { BenchHttp, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN, startGateway } from '../processes.js';
import { cpuNs, rssMb, rssSampler, waitIdle } from '../proc.js';
import { seedForMode } from '../seed-pending.js';
import { round, summarize, type Percentiles } from '../stats.js';
import { GateClient } from '../../src/client/gate-client.js';
import { IDS_PER_STREAM } from '../../src/client/verdicts.js';

interface MultiplexParams {
  url: string;
  token: string;
  ids: string[];
}

/** What the client measures. */
interface MultiplexResult {
  rss_holding_mb: number;
  /** From the call to `waitMany` until the gateway was idle again with every stream open. */
  open_ms: number;
  /** The gateway's CPU time over `open_ms` (every thread; `mark` answers the gateway's CPU ms so far). */
  open_cpu_ms: number;
  /** The sample decided one at a time. */
  delivery_ms: Percentiles;
  /** The rest, decided 16 at a time: mostly the decision's wait behind the 15 others. */
  delivery_under_load_ms: Percentiles;
  /**
   * From the decision's answer arriving to its verdict arriving (negative when the verdict came first), under load:
   * the stream's own share of `delivery_under_load_ms`, without the decision's time in the gateway's queue.
   */
  delivery_after_answer_ms: Percentiles;
  delivered: number;
  /** The gateway's CPU time over `decide_window_ms`. */
  decide_cpu_ms: number;
  /** Decisions answered 200 (with `expired_first`, what should have been delivered when the wait gave up early). */
  decided: number;
  decide_window_ms: number;
  /** Requests whose deadline came before their decision (a slow machine): delivered as expired, not timed. */
  expired_first: number;
  /** The first error of `waitMany`, if it failed. */
  error: string | null;
}

/** How many decisions are in flight at once after the timed sample: a steady stream (SQLite commits them in groups). */
const DECIDERS = 16;
/** One id in this many is in the timed sample, decided one at a time first. */
const SAMPLE_EVERY = 20;
/** The whole wait gives up after this long (the verdicts still missing then are counted as not delivered). */
const GIVE_UP_MS = 300_000;

const multiplex: ClientTask = async (raw, ask) => {
  const p = raw as unknown as MultiplexParams;
  const http = new BenchHttp(p.url, p.token, DECIDERS * 2);
  const arrivedAt = new Map<string, number>();
  /** The timed decision waiting for its verdict to arrive. */
  let awaited: { id: string; arrived(): void } | null = null;
  const gate = new GateClient({ url: p.url, token: p.token });
  const giveUp = new AbortController();
  const timer = setTimeout(
    () => giveUp.abort(new Error(`not every verdict arrived within ${GIVE_UP_MS} ms`)),
    GIVE_UP_MS,
  );
  try {
    const cpuBefore = (await ask('mark')) as number;
    const opened = performance.now();
    let error: string | null = null;
    const onVerdict = (r: { id: string }) => {
      arrivedAt.set(r.id, performance.now());
      if (awaited?.id === r.id) awaited.arrived();
    };
    const waiting = gate.waitMany(p.ids, { signal: giveUp.signal, onVerdict }).catch((e: unknown) => {
      error = e instanceof Error ? e.message : String(e);
    });
    await ask('idle');
    const openMs = performance.now() - opened;
    const openCpuMs = ((await ask('mark')) as number) - cpuBefore;
    const rssHolding = (await ask('rss')) as number;
    const sentAt = new Array<number>(p.ids.length).fill(Number.NaN);
    const answeredAt = new Array<number>(p.ids.length).fill(Number.NaN);
    const decideStart = performance.now();
    let expired = 0;
    let decided = 0;
    const decide = async (i: number) => {
      // Past the give-up time the rest is not sent: the verdicts missing then are counted.
      if (giveUp.signal.aborted) return;
      const started = performance.now();
      const res = await http.send('POST', `/v1/requests/${p.ids[i]}/decision`, {
        decision: 'approve',
        approver: 'web:bench-approver',
      });
      // On a slow machine the seeded deadlines (10 to 60 minutes out) may come first: the verdict is then the expiry,
      // delivered all the same, but it has no decision to time.
      if (res.status === 409 && res.body.includes('expired')) expired++;
      else if (res.status !== 200) throw new Error(`decision -> ${res.status}: ${res.body.slice(0, 200)}`);
      else {
        sentAt[i] = started;
        answeredAt[i] = performance.now();
        decided++;
      }
    };
    // A verdict that never comes (the stream failed) must not hold the sample past the give-up time.
    giveUp.signal.addEventListener('abort', () => awaited?.arrived(), { once: true });
    const sample = p.ids.flatMap((_, i) => (i % SAMPLE_EVERY === 0 ? [i] : []));
    const rest = p.ids.flatMap((_, i) => (i % SAMPLE_EVERY === 0 ? [] : [i]));
    await pool(sample.length, 1, async (k) => {
      const i = sample[k]!;
      const arrived = new Promise<void>((resolve) => (awaited = { id: p.ids[i]!, arrived: resolve }));
      await decide(i);
      if (!arrivedAt.has(p.ids[i]!)) await arrived;
      awaited = null;
    });
    await pool(rest.length, DECIDERS, (k) => decide(rest[k]!));
    const decideWindow = performance.now() - decideStart;
    const decideCpuMs = ((await ask('mark')) as number) - cpuBefore - openCpuMs;
    await waiting;
    const since = (from: number[], among: number[]) =>
      among.flatMap((i) =>
        arrivedAt.has(p.ids[i]!) && !Number.isNaN(from[i]!) ? [arrivedAt.get(p.ids[i]!)! - from[i]!] : [],
      );
    return {
      rss_holding_mb: rssHolding,
      open_ms: round(openMs),
      open_cpu_ms: round(openCpuMs),
      delivery_ms: summarize(since(sentAt, sample)),
      delivery_under_load_ms: summarize(since(sentAt, rest)),
      delivery_after_answer_ms: summarize(since(answeredAt, rest)),
      delivered: arrivedAt.size,
      decided,
      decide_window_ms: round(decideWindow),
      decide_cpu_ms: round(decideCpuMs),
      expired_first: expired,
      error,
    } satisfies MultiplexResult;
  } finally {
    clearTimeout(timer);
    http.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { multiplex };

/**
 * The V8 flag docs/production.md names for memory-bound deployments ("Memory: a small host"): the
 * scenario runs once at Node's defaults and once with it (issue 47: no flag becomes a default, the bench measures both).
 */
export const MEMORY_FLAGS = '--max-semi-space-size=16';

/** The SQLite page cache, in MB, that the same section names for memory-bound deployments (`TOLLGATE_SQLITE_CACHE_MB`). */
export const MEMORY_SQLITE_CACHE_MB = '16';

/** One run of the scenario on a freshly seeded file, the gateway started with `env` added. */
async function runOnce(
  ctx: Parameters<Scenario['run']>[0],
  name: string,
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const { ids, db: dbPath } = await seedForMode(ctx, name, ctx.quick ? 20_000 : 100_000, 0);
  const gateway = await startGateway({
    dbPath,
    env: { ...ctx.gatewayEnv, ...env },
    cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-${name}`) : undefined,
  });
  try {
    await waitIdle(gateway.pid, 60_000);
    const idleRss = rssMb(gateway.pid);
    const rss = rssSampler(gateway.pid);
    let result: MultiplexResult;
    try {
      result = await ctx.client.run<MultiplexResult>(
        'waiters-multiplexed',
        'multiplex',
        { url: gateway.url, token: BENCH_TOKEN, ids },
        {
          idle: () => waitIdle(gateway.pid, 120_000),
          rss: () => rssMb(gateway.pid),
          mark: () => cpuNs(gateway.pid) / 1e6,
        },
      );
    } finally {
      rss.stop();
    }
    if (result.error)
      ctx.log(
        `waiters_multiplexed_100k (${name}): ${result.delivered} of ${ids.length} verdicts delivered; ${result.error}`,
      );
    return {
      rss_mb: round(rss.stop(), 0),
      rss_holding_mb: round(result.rss_holding_mb, 0),
      rss_idle_mb: round(idleRss, 0),
      requests: ids.length,
      connections: Math.ceil(ids.length / IDS_PER_STREAM),
      delivered: result.delivered,
      not_delivered: ids.length - result.delivered,
      // Verdicts given (decided or expired first) that never arrived: lost ones, whatever the machine's speed.
      given_not_delivered: result.decided + result.expired_first - result.delivered,
      delivery_ms: {
        p50: result.delivery_ms.p50,
        p99: result.delivery_ms.p99,
        max: result.delivery_ms.max,
        n: result.delivery_ms.n,
      },
      delivery_under_load_ms: {
        p50: result.delivery_under_load_ms.p50,
        p99: result.delivery_under_load_ms.p99,
        max: result.delivery_under_load_ms.max,
      },
      delivery_after_answer_ms: {
        p50: result.delivery_after_answer_ms.p50,
        p99: result.delivery_after_answer_ms.p99,
        max: result.delivery_after_answer_ms.max,
      },
      open_ms: result.open_ms,
      open_cpu_ms: result.open_cpu_ms,
      decide_window_ms: result.decide_window_ms,
      decide_cpu_ms_per_decision: round(result.decide_cpu_ms / Math.max(1, result.decided), 3),
      expired_before_decided: result.expired_first,
      error: result.error,
    };
  } finally {
    await gateway.stop();
  }
}

/**
 * `waiters_multiplexed_100k.{rss_mb,delivery_ms,delivered}` at Node's defaults, and the same under
 * `waiters_multiplexed_100k.flags` with the memory-bound settings docs/production.md names — {@link MEMORY_FLAGS} and
 * {@link MEMORY_SQLITE_CACHE_MB} (`flags.node_options`, `flags.sqlite_cache_mb`): the RSS goal is the flagged run's,
 * the default's RSS is reported beside it, and `decide_cpu_ms_per_decision` says what the settings cost.
 */
export const waitersMultiplexedScenario: Scenario = {
  name: 'waiters_multiplexed_100k',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const defaults = await runOnce(ctx, 'multiplexed', {});
    const flags = await runOnce(ctx, 'multiplexed-flags', {
      NODE_OPTIONS: MEMORY_FLAGS,
      TOLLGATE_SQLITE_CACHE_MB: MEMORY_SQLITE_CACHE_MB,
    });
    return {
      waiters_multiplexed_100k: {
        ...defaults,
        flags: { node_options: MEMORY_FLAGS, sqlite_cache_mb: Number(MEMORY_SQLITE_CACHE_MB), ...flags },
      },
    };
  },
};
