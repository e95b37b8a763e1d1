/**
 * @module bench/scenarios/floor
 * The floor: a bare node:http server in its own process, loaded by the same client with the same load as the gateway.
 */
import type { Scenario } from '../context.js';
import { startFloorServer } from '../processes.js';
import { cpuMarks } from '../proc.js';
import { round, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';

/** `floor.http_rtt_ms` and `floor.http_rps`. */
export const floorScenario: Scenario = {
  name: 'floor',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const server = await startFloorServer();
    try {
      const rtt = await ctx.client.run<Percentiles>('http-load', 'rtt', {
        url: server.url,
        path: '/v1/requests/x',
        count: ctx.quick ? 300 : 2000,
        warmup: 200,
      });
      const cpu = cpuMarks(server.pid);
      const load = await ctx.client.run<{ rps: number; completed: number; latency_ms: Percentiles }>(
        'http-load',
        'postLoop',
        {
          url: server.url,
          path: '/v1/requests',
          concurrency: CREATE_CONCURRENCY,
          warmupMs: 1000,
          durationMs: ctx.quick ? 2000 : 5000,
          body: CREATE_BODY,
          okStatus: 201,
        },
        { mark: cpu.mark },
      );
      return {
        floor: {
          http_rtt_ms: { p50: rtt.p50, p99: rtt.p99 },
          http_rps: load.rps,
          http_latency_ms_at_64: { p50: load.latency_ms.p50, p99: load.latency_ms.p99 },
          http_cpu_ms_per_request: round(cpu.msPer(load.completed), 3),
        },
      };
    } finally {
      await server.stop();
    }
  },
};
