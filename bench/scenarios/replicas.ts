/**
 * @module bench/scenarios/replicas
 * `replicas_2` (postgres mode only): what a second `tollgate serve` on the same PostgreSQL database and Redis gives,
 * against one, on the same cores and in the same run (issue 57). No balancer: the load client splits the load itself
 * (`replicas-load.ts`).
 *
 * 1. One replica (A) on a fresh database takes the `create_rps` load (64 concurrent clients): `replicas.one_create_rps`.
 * 2. A second replica (B) starts on the same database; the same load alternates between A and B: `replicas_2.create_rps`.
 * 3. Decision → resume with every long-poll parked on A, the decisions alternating between A (`same_ms`) and B
 *    (`cross_ms`: the wake-up crosses replicas).
 *
 * Beside each load: the CPU per create of the replicas, of PostgreSQL, of Redis and of the load client. From them,
 * `replicas.create_rps_two_vs_one`, `replicas.cpu_per_create_two_vs_one` (replicas + PostgreSQL) and the capacity
 * model's prediction for one and for two replicas (`bench/capacity-model.ts`) against what each measured:
 * `replicas.capacity_model_error_pct`. One replica is measured first in every run; the database then holds its rows
 * when two are measured (a few tens of thousands: the history scenario finds 10 million cost creates under 10 %).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { modelErrorPct, predictCreates, type CreateCost } from '../capacity-model.js';
import { freshDatabase, type BenchContext, type Scenario } from '../context.js';
import { BENCH_TOKEN, startGateway, type ServerProcess } from '../processes.js';
import { phaseCpu, waitIdle } from '../proc.js';
import { round, type Percentiles } from '../stats.js';
import type { CreatesResult, DecisionsResult } from './replicas-load.js';

/** The create load on `replicas` (one or more), with the CPU per create of every process that serves it. */
async function createLoad(
  ctx: BenchContext,
  replicas: readonly ServerProcess[],
): Promise<{ load: CreatesResult; created: number; cost: CreateCost }> {
  // What a replica does once, before it serves (a new replica walks the pending rows the first phase left and re-arms
  // their timers; every replica integrates what the last phase left), is no create's cost: it ends before the load.
  await Promise.all(replicas.map((r) => waitIdle(r.pid)));
  const cpu = phaseCpu(
    replicas.map((r) => r.pid),
    true,
    ctx.client.pid,
    true,
  );
  const load = await ctx.client.run<CreatesResult>(
    'replicas-load',
    'creates',
    {
      urls: replicas.map((r) => r.url),
      token: BENCH_TOKEN,
      warmupMs: ctx.quick ? 1000 : 2000,
      durationMs: ctx.quick ? 3000 : 8000,
    },
    { mark: (edge) => (edge === 'start' ? cpu.start() : cpu.stop()) },
  );
  const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
  if (errors.length)
    ctx.log(`replicas (${replicas.length}): non-201 answers ${JSON.stringify(Object.fromEntries(errors))}`);
  const created = load.created_per_replica.reduce((sum, n) => sum + n, 0);
  const ms = cpu.msPer(created);
  return {
    load,
    created,
    cost: { gateways: ms.gateway, database: ms.database!, redis: ms.redis!, client: ms.client! },
  };
}

/** Decision → resume across replicas, with the CPU per decision of both replicas, PostgreSQL and the client. */
async function crossDecisions(ctx: BenchContext, a: ServerProcess, b: ServerProcess) {
  const cpu = phaseCpu([a.pid, b.pid], true, ctx.client.pid);
  const count = ctx.quick ? 200 : 1000;
  const result = await ctx.client.run<DecisionsResult>(
    'replicas-load',
    'decisions',
    { urls: [a.url, b.url], token: BENCH_TOKEN, count, batch: 100 },
    {
      idle: async () => (await Promise.all([waitIdle(a.pid), waitIdle(b.pid)])).every(Boolean),
      mark: (edge) => (edge === 'start' ? cpu.start() : cpu.stop()),
    },
  );
  const ms = cpu.msPer(count);
  return {
    result,
    cpu: { gateways: round(ms.gateway, 3), database: round(ms.database!, 3), client: round(ms.client!, 3) },
  };
}

const rounded = (cost: CreateCost) => ({
  gateways: round(cost.gateways, 3),
  database: round(cost.database, 3),
  redis: round(cost.redis, 3),
  client: round(cost.client, 3),
});

/** `replicas_2.*` (two replicas) and `replicas.*` (one replica, two against one, the capacity model's check). */
export const replicasScenario: Scenario = {
  name: 'replicas_2',
  modes: ['postgres'],
  async run(ctx) {
    const db = await freshDatabase(ctx, 'replicas');
    const gateways: ServerProcess[] = [];
    try {
      // One after the other: the first applies the migrations, the second finds them applied.
      const start = (name: string) =>
        startGateway({
          dbPath: db,
          env: ctx.gatewayEnv,
          cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-replicas-${name}`) : undefined,
        });
      gateways.push(await start('a'));
      const one = await createLoad(ctx, gateways);
      gateways.push(await start('b'));
      const [a, b] = gateways as [ServerProcess, ServerProcess];
      const two = await createLoad(ctx, [a, b]);
      const decisions = await crossDecisions(ctx, a, b);

      const cores = availableParallelism();
      const models = {
        one: predictCreates(1, one.cost, cores),
        two: predictCreates(2, two.cost, cores),
      };
      const pick = (q: Percentiles) => ({ p50: q.p50, p99: q.p99, max: q.max, n: q.n });
      return {
        replicas_2: {
          create_rps: two.load.create_rps,
          created_per_replica: two.load.created_per_replica,
          decision_to_resume_cross_ms: pick(decisions.result.cross),
          decision_to_resume_same_ms: pick(decisions.result.same),
          create_cpu_ms_per_request: rounded(two.cost),
          decision_cpu_ms_per_request: decisions.cpu,
        },
        replicas: {
          one_create_rps: one.load.create_rps,
          one_create_cpu_ms_per_request: rounded(one.cost),
          create_rps_two_vs_one: round(two.load.create_rps / one.load.create_rps, 3),
          // Issue 57's check of the model's first assumption: a create costs the replicas and the database no more
          // with two replicas than with one.
          cpu_per_create_two_vs_one: round(
            (two.cost.gateways + two.cost.database) / (one.cost.gateways + one.cost.database),
            3,
          ),
          capacity_model: { cores, ...models },
          capacity_model_error_pct: {
            one: modelErrorPct(models.one.predicted_rps, one.load.create_rps),
            two: modelErrorPct(models.two.predicted_rps, two.load.create_rps),
          },
        },
      };
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }
  },
};
