/**
 * @module bench/scenarios/create-rps
 * `create_rps`: sustained `POST /v1/requests` (web channel, the default) from 64 concurrent clients.
 */
import { freshGateway, type BenchContext, type Scenario } from '../context.js';
import { BENCH_TOKEN, type ServerProcess } from '../processes.js';
import { phaseCpu, rssSampler } from '../proc.js';
import { round, type Percentiles } from '../stats.js';

/** Concurrent clients of the create load (and of the floor's). */
export const CREATE_CONCURRENCY = 64;

/** A typical request body; `{i}` makes every tool call distinct. */
export const CREATE_BODY = {
  tool_name: 'bench.write_file',
  tool_args: { path: '/srv/app/config-{i}.yaml', bytes: 1024, overwrite: true },
  prompt: 'The agent wants to overwrite a config file.',
  agent_id: 'bench-agent',
  session_id: 'bench-session-{i}',
};

/**
 * The arguments of the closed create loop (`http-load`'s `postLoop`) that every create load runs: {@link
 * CREATE_CONCURRENCY} clients posting `body` to `url`, after a warm-up, for the run's duration unless `times` says.
 */
export function createLoop(
  ctx: BenchContext,
  url: string,
  body: object = CREATE_BODY,
  times = { warmupMs: ctx.quick ? 1000 : 2000, durationMs: ctx.quick ? 3000 : 8000 },
) {
  return {
    url,
    token: BENCH_TOKEN,
    path: '/v1/requests',
    concurrency: CREATE_CONCURRENCY,
    ...times,
    body,
    okStatus: 201,
  };
}

/** What {@link measureCreates} measured on one gateway. */
export interface CreateFigures {
  create_rps: number;
  create_latency_ms_at_64: { p50: number; p99: number };
  create_cpu_ms_per_request: number;
  /** PostgreSQL's CPU per create, where the audit chain's trigger runs (postgres mode only). */
  create_db_cpu_ms_per_request?: number;
  create_peak_rss_mb: number;
  /** The load client's CPU per create: with the gateway's and the database's, what one create costs this machine (docs/performance.md, "Capacity"). */
  create_client_cpu_ms_per_request: number;
}

/** The create load on a running gateway: sustained creates from {@link CREATE_CONCURRENCY} clients. */
export async function measureCreates(ctx: BenchContext, gateway: ServerProcess): Promise<CreateFigures> {
  const rss = rssSampler(gateway.pid);
  const cpu = phaseCpu(gateway.pid, ctx.mode === 'postgres', ctx.client.pid);
  try {
    const load = await ctx.client.run<{
      rps: number;
      completed: number;
      by_status: Record<string, number>;
      latency_ms: Percentiles;
    }>('http-load', 'postLoop', createLoop(ctx, gateway.url), {
      mark: (phase) => (phase === 'start' ? cpu.start() : cpu.stop()),
    });
    const perCreate = cpu.msPer(load.completed);
    const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
    if (errors.length) ctx.log(`create_rps: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}`);
    return {
      create_rps: load.rps,
      create_latency_ms_at_64: { p50: load.latency_ms.p50, p99: load.latency_ms.p99 },
      create_cpu_ms_per_request: round(perCreate.gateway, 3),
      ...(perCreate.database === null ? {} : { create_db_cpu_ms_per_request: round(perCreate.database, 3) }),
      create_peak_rss_mb: round(rss.stop(), 0),
      create_client_cpu_ms_per_request: round(perCreate.client!, 3),
    };
  } finally {
    rss.stop();
  }
}

/** `create_rps` (and the latency under that load, for context). */
export const createRpsScenario: Scenario = {
  name: 'create_rps',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const gateway = await freshGateway(ctx, 'create');
    try {
      return { ...(await measureCreates(ctx, gateway)) };
    } finally {
      await gateway.stop();
    }
  },
};
