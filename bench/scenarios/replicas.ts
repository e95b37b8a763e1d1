/**
 * @module bench/scenarios/replicas
 * `replicas_2` (postgres mode only): two `tollgate serve` processes on the same PostgreSQL database and Redis, with
 * no balancer in front — the client itself splits the load. Figures: `create_rps` with creates alternating between
 * the replicas (64 concurrent clients, as in `create_rps`), and decision→resume with every long-poll parked on
 * replica A while the decisions alternate between A (`same_ms`) and B (`cross_ms`: the wake-up crosses replicas).
 * Beside them the CPU per create and per decision of both replicas, of PostgreSQL and of the load client, which the
 * capacity model (docs/performance.md, "Capacity") is checked against.
 */
import { freshDatabase, type Scenario } from '../context.js';
import { BenchHttp, closedLoop, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN, phaseCpu, startGateway, waitIdle, type ServerProcess } from '../processes.js';
import { round, summarize, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';
import { createWebRequest, type ApiRequest } from './decision-resume.js';

interface SplitParams {
  urls: [string, string];
  token: string;
  warmupMs: number;
  durationMs: number;
  count: number;
  batch: number;
}

interface SplitResult {
  create_rps: number;
  created_per_replica: [number, number];
  by_status: Record<string, number>;
  same: Percentiles;
  cross: Percentiles;
}

const split: ClientTask = async (raw, ask) => {
  const p = raw as unknown as SplitParams;
  const https = p.urls.map((url) => new BenchHttp(url, p.token, CREATE_CONCURRENCY)) as [BenchHttp, BenchHttp];
  const polls = new BenchHttp(p.urls[0], p.token, p.batch + 8);
  try {
    // Load split across both: request n goes to replica n % 2.
    const template = JSON.stringify(CREATE_BODY);
    let seq = 0;
    const perReplica: [number, number] = [0, 0];
    const once = async () => {
      const n = seq++;
      const res = await https[n % 2]!.send('POST', '/v1/requests', template.replaceAll('{i}', String(n)));
      if (res.status === 201) perReplica[n % 2]!++;
      return res.status;
    };
    await closedLoop(CREATE_CONCURRENCY, p.warmupMs, once);
    perReplica.fill(0);
    await ask('mark', 'create-start');
    const run = await closedLoop(CREATE_CONCURRENCY, p.durationMs, once);
    await ask('mark', 'create-end');
    const createRps = round((run.byStatus['201'] ?? 0) / (run.elapsedMs / 1000), 0);

    // Decision→resume: long-polls on A; decisions alternate A (same replica) and B (the other replica).
    const same: number[] = [];
    const cross: number[] = [];
    for (let done = 0; done < p.count; done += p.batch) {
      const size = Math.min(p.batch, p.count - done);
      const requests = await pool(size, 16, (i) => createWebRequest(https[(done + i) % 2]!, done + i));
      const waits = requests.map((r) => polls.send('GET', `/v1/requests/${r.id}?wait=50`));
      await ask('idle');
      await ask('mark', 'decide-start');
      for (let i = 0; i < size; i++) {
        const onB = i % 2 === 1;
        const started = performance.now();
        const answer = await https[onB ? 1 : 0].send('POST', `/v1/requests/${requests[i]!.id}/decision`, {
          decision: 'approve',
          approver: 'web:bench-approver',
          reason: 'bench',
        });
        if (answer.status !== 200)
          throw new Error(`decision on ${requests[i]!.id} -> ${answer.status}: ${answer.body.slice(0, 300)}`);
        const resumed = await waits[i]!;
        const body = JSON.parse(resumed.body) as ApiRequest;
        if (body.status === 'pending')
          throw new Error(
            `long-poll on ${body.id} (replica A) answered pending after a decision on replica ${onB ? 'B' : 'A'}`,
          );
        (onB ? cross : same).push(resumed.doneAt - started);
      }
      await ask('mark', 'decide-end');
    }
    return {
      create_rps: createRps,
      created_per_replica: perReplica,
      by_status: run.byStatus,
      same: summarize(same),
      cross: summarize(cross),
    } satisfies SplitResult;
  } finally {
    for (const http of https) http.close();
    polls.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { split };

/** `replicas_2.{create_rps, decision_to_resume_cross_ms, decision_to_resume_same_ms}`. */
export const replicasScenario: Scenario = {
  name: 'replicas_2',
  modes: ['postgres'],
  async run(ctx) {
    const db = await freshDatabase(ctx, 'replicas');
    const gateways: ServerProcess[] = [];
    try {
      // One after the other: the first applies the migrations, the second finds them applied.
      for (const _ of [0, 1]) gateways.push(await startGateway({ dbPath: db, env: ctx.gatewayEnv }));
      const [a, b] = gateways as [ServerProcess, ServerProcess];
      // CPU per call of both replicas together, of PostgreSQL and of the load client: the capacity model's check.
      const cpu = {
        create: phaseCpu([a.pid, b.pid], true, ctx.client.pid),
        decide: phaseCpu([a.pid, b.pid], true, ctx.client.pid),
      };
      const count = ctx.quick ? 200 : 1000;
      const result = await ctx.client.run<SplitResult>(
        'replicas',
        'split',
        {
          urls: [a.url, b.url],
          token: BENCH_TOKEN,
          warmupMs: ctx.quick ? 1000 : 2000,
          durationMs: ctx.quick ? 3000 : 8000,
          count,
          batch: 100,
        },
        {
          idle: async () => (await Promise.all([waitIdle(a.pid), waitIdle(b.pid)])).every(Boolean),
          mark: (what) => {
            const [phase, edge] = String(what).split('-') as ['create' | 'decide', 'start' | 'end'];
            if (edge === 'start') cpu[phase].start();
            else cpu[phase].stop();
          },
        },
      );
      const created = result.created_per_replica[0] + result.created_per_replica[1];
      const perCall = (phase: 'create' | 'decide', calls: number) => {
        const ms = cpu[phase].msPer(calls);
        return { gateways: round(ms.gateway, 3), database: round(ms.database!, 3), client: round(ms.client!, 3) };
      };
      const errors = Object.entries(result.by_status).filter(([status]) => status !== '201');
      if (errors.length) ctx.log(`replicas_2: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}`);
      const pick = (q: Percentiles) => ({ p50: q.p50, p99: q.p99, max: q.max, n: q.n });
      return {
        replicas_2: {
          create_rps: result.create_rps,
          created_per_replica: result.created_per_replica,
          decision_to_resume_cross_ms: pick(result.cross),
          decision_to_resume_same_ms: pick(result.same),
          create_cpu_ms_per_request: perCall('create', created),
          decision_cpu_ms_per_request: perCall('decide', count),
        },
      };
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }
  },
};
