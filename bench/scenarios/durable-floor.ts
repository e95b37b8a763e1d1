/**
 * @module bench/scenarios/durable-floor
 * The durable floors (issues 35 and 47): node:http doing one synced commit per call on this mode's store (SQLite with
 * the gateway's pragmas, or PostgreSQL with one commit per statement), and nothing else. Creates: one
 * `confirmation_requests` row per POST, under the create scenario's load; the gateway's create groups commits, so it
 * should beat this. Decisions: on a fresh database, the row's approval committed and its parked long-poll answered,
 * driven by the very client task `decision_to_resume` uses; the gateway's wake-up is judged against it.
 */
import { freshDatabase, type Scenario } from '../context.js';
import { startDurableFloorServer } from '../processes.js';
import { cpuMarks, phaseCpu, waitIdle } from '../proc.js';
import { round, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';

/** `floor.durable_create_rps` and `floor.durable_decision_to_resume_ms` (under `postgres.floor` in postgres mode). */
export const durableFloorScenario: Scenario = {
  name: 'durable_floor',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const server = await startDurableFloorServer(await freshDatabase(ctx, 'durable_floor'));
    const cpu = cpuMarks(server.pid);
    let creates: Record<string, unknown>;
    try {
      const load = await ctx.client.run<{
        rps: number;
        completed: number;
        by_status: Record<string, number>;
        latency_ms: Percentiles;
      }>(
        'http-load',
        'postLoop',
        {
          url: server.url,
          path: '/v1/requests',
          concurrency: CREATE_CONCURRENCY,
          warmupMs: ctx.quick ? 1000 : 2000,
          durationMs: ctx.quick ? 3000 : 8000,
          body: CREATE_BODY,
          okStatus: 201,
        },
        { mark: cpu.mark },
      );
      const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
      if (errors.length)
        throw new Error(
          `durable floor answered ${JSON.stringify(Object.fromEntries(errors))}:\n${server.output().slice(-2000)}`,
        );
      creates = {
        durable_create_rps: load.rps,
        durable_latency_ms_at_64: { p50: load.latency_ms.p50, p99: load.latency_ms.p99 },
        durable_cpu_ms_per_request: round(cpu.msPer(load.completed), 3),
      };
    } finally {
      await server.stop();
    }
    return { floor: { ...creates, ...(await durableDecisions(ctx)) } };
  },
};

/** Decision → resume on the durable floor: the same requests, batches and client task as `decision_to_resume`. */
async function durableDecisions(ctx: Parameters<Scenario['run']>[0]): Promise<Record<string, unknown>> {
  const server = await startDurableFloorServer(await freshDatabase(ctx, 'durable_decision'));
  const count = ctx.quick ? 200 : 1000;
  const cpu = phaseCpu(server.pid, ctx.mode === 'postgres');
  try {
    const result = await ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
      'decision-resume',
      'api',
      { url: server.url, token: 'unused', count, batch: 100 },
      { idle: () => waitIdle(server.pid), mark: (phase) => (phase === 'start' ? cpu.start() : cpu.stop()) },
    );
    if (result.not_parked)
      throw new Error(`durable floor: ${result.not_parked} long-polls answered before their decision was sent`);
    const perDecision = cpu.msPer(count);
    return {
      durable_decision_to_resume_ms: {
        p50: result.resume.p50,
        p99: result.resume.p99,
        max: result.resume.max,
        n: result.resume.n,
      },
      durable_decision_rtt_ms: { p50: result.decision_rtt.p50, p99: result.decision_rtt.p99 },
      durable_decision_cpu_ms_per_request: round(perDecision.gateway, 3),
      ...(perDecision.database === null
        ? {}
        : { durable_decision_db_cpu_ms_per_request: round(perDecision.database, 3) }),
    };
  } finally {
    await server.stop();
  }
}
