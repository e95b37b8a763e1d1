/**
 * @module bench/scenarios/durable-floor
 * The durable floor (issue 35, goal 3): node:http committing one `confirmation_requests` row per create, on this
 * mode's store (SQLite with the gateway's pragmas, or PostgreSQL with one commit per request), under the create
 * scenario's load. The gateway's create groups commits, so it should beat this.
 */
import { freshDatabase, type Scenario } from '../context.js';
import { cpuMarks, startDurableFloorServer } from '../processes.js';
import { round, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';

/** `floor.durable_create_rps` (under `postgres.floor` in postgres mode). */
export const durableFloorScenario: Scenario = {
  name: 'durable_floor',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const server = await startDurableFloorServer(await freshDatabase(ctx, 'durable_floor'));
    const cpu = cpuMarks(server.pid);
    try {
      const load = await ctx.client.run<{ rps: number; completed: number; by_status: Record<string, number>; latency_ms: Percentiles }>('http-load', 'postLoop', {
        url: server.url,
        path: '/v1/requests',
        concurrency: CREATE_CONCURRENCY,
        warmupMs: ctx.quick ? 1000 : 2000,
        durationMs: ctx.quick ? 3000 : 8000,
        body: CREATE_BODY,
        okStatus: 201,
      }, { mark: cpu.mark });
      const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
      if (errors.length) throw new Error(`durable floor answered ${JSON.stringify(Object.fromEntries(errors))}:\n${server.output().slice(-2000)}`);
      return {
        floor: {
          durable_create_rps: load.rps,
          durable_latency_ms_at_64: { p50: load.latency_ms.p50, p99: load.latency_ms.p99 },
          durable_cpu_ms_per_request: round(cpu.msPer(load.completed), 3),
        },
      };
    } finally {
      await server.stop();
    }
  },
};
