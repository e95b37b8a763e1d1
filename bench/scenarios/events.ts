/**
 * @module bench/scenarios/events
 * The event stream's figures (`events:` webhook sinks, src/events/): a local receiver in the orchestrator's process
 * (node:http on 127.0.0.1, answering 204 to every signed CloudEvent, checking its `tollgate-signature`) is the one
 * sink of a config file the gateway reads through `TOLLGATE_CONFIG`, with `TOLLGATE_CALLBACK_ALLOW=127.0.0.1` so the
 * loopback URL is allowed.
 *
 * - `events.create_rps`: the `create_rps` load (64 clients) on a gateway with the sink, right after the same load
 *   on a gateway without it (`events.create_rps_off`), both in this scenario so the two share the machine's state;
 *   `events.create_cost_pct` = (off − on) / off × 100. `events.delivered_per_s_under_load` (events the receiver got
 *   during the measured window) and `…_after_load` (in the 2 s after it) say whether the sink kept up;
 *   `events.events_per_post_under_load` (events per POST the receiver got in the window) whether it batched.
 * - `events.delivery_lag_ms`: requests filed one at a time on a fresh gateway with the sink; from the create's 201 at
 *   the load client to its `dev.tollgate.request.created` event at the receiver, both stamped on the clock the two
 *   processes share (`process.hrtime`). `events.since_commit_ms`: the same arrivals against the event's own `time`
 *   (its commit, wall clock in whole ms).
 * - `events.sustained_*`: a steady 1,000 creates a second on a fresh gateway with the sink (./events-sustained.ts).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshGateway, type BenchContext, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { cpuMarks } from '../proc.js';
import { round, sleep, summarize, type Percentiles } from '../stats.js';
import { CREATE_BODY, createLoop } from './create-rps.js';
import { Receiver, sharedNow } from './events-receiver.js';
import { sustainedFigures } from './events-sustained.js';

/** `performance.now()` → {@link sharedNow}. */
const sharedOffset = () => sharedNow() - performance.now();

/** Files requests one at a time; each 201 is timed against its `created` event's arrival (`event` answers with it). */
const single: ClientTask = async (raw, ask) => {
  const p = raw as unknown as { url: string; token: string; count: number };
  const http = new BenchHttp(p.url, p.token, 1);
  const lag: number[] = [];
  try {
    for (let i = 0; i < p.count; i++) {
      const request = await http.json<{ id: string }>(
        'POST',
        '/v1/requests',
        {
          ...CREATE_BODY,
          tool_args: { ...CREATE_BODY.tool_args, path: `/srv/app/config-${i}.yaml` },
          session_id: `bench-session-${i}`,
        },
        201,
      );
      const created = request.doneAt + sharedOffset();
      const arrived = (await ask('event', request.id)) as number;
      lag.push(arrived - created);
    }
    return { lag: summarize(lag) };
  } finally {
    http.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { single };

/** The config file naming `url` as the one sink. */
function sinkConfig(ctx: BenchContext, url: string, secret: string): string {
  const file = join(ctx.tmp, 'events.yaml');
  writeFileSync(file, `events:\n  - url: ${url}\n    secret: ${secret}\n`);
  return file;
}

/** The `create_rps` load on a fresh gateway; with `receiver`, counts the events it got during the measured window. */
async function createLoad(ctx: BenchContext, name: string, env: Record<string, string>, receiver: Receiver | null) {
  const gateway = await freshGateway(ctx, name, env);
  const cpu = cpuMarks(gateway.pid);
  const received: Record<string, number> = {};
  const posts: Record<string, number> = {};
  const durationMs = ctx.quick ? 3000 : 8000;
  try {
    const load = await ctx.client.run<{ rps: number; completed: number; by_status: Record<string, number> }>(
      'http-load',
      'postLoop',
      createLoop(ctx, gateway.url, CREATE_BODY, { warmupMs: ctx.quick ? 1000 : 2000, durationMs }),
      {
        mark: (payload) => {
          received[String(payload)] = receiver?.received ?? 0;
          posts[String(payload)] = receiver?.posts ?? 0;
          return cpu.mark(payload);
        },
      },
    );
    const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
    if (errors.length) ctx.log(`events ${name}: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}`);
    // How fast the sink works through its backlog once the load stops (an idle event loop): under load it may get
    // few turns, and then the creates' cost is low partly because the deliveries wait.
    const afterMs = 2000;
    const before = receiver?.received ?? 0;
    if (receiver) await sleep(afterMs);
    return {
      rps: load.rps,
      cpu: cpu.msPer(load.completed),
      deliveredPerS: ((received.end ?? 0) - (received.start ?? 0)) / (durationMs / 1000),
      deliveredPerSAfter: ((receiver?.received ?? 0) - before) / (afterMs / 1000),
      eventsPerPost: ((received.end ?? 0) - (received.start ?? 0)) / Math.max(1, (posts.end ?? 0) - (posts.start ?? 0)),
    };
  } finally {
    // A backlog left undelivered would hold a graceful stop (it delivers what waits) for the whole grace period.
    await gateway.stop(receiver ? 2000 : undefined);
  }
}

/** `events.create_rps`, `events.create_cost_pct` and `events.delivery_lag_ms`. */
export const eventsScenario: Scenario = {
  name: 'events',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const secret = randomBytes(16).toString('hex');
    const receiver = await Receiver.start(secret);
    try {
      const env = { TOLLGATE_CONFIG: sinkConfig(ctx, receiver.url, secret), TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' };
      const off = await createLoad(ctx, 'events-off', {}, null);
      const on = await createLoad(ctx, 'events-on', env, receiver);
      const gateway = await freshGateway(ctx, 'events-lag', env);
      let lag: { lag: Percentiles };
      const sinceCommit: number[] = [];
      try {
        lag = await ctx.client.run<{ lag: Percentiles }>(
          'events',
          'single',
          { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 100 : 1000 },
          {
            event: async (id) => {
              const arrival = await receiver.createdOf(String(id));
              sinceCommit.push(arrival.sinceCommit);
              return arrival.at;
            },
          },
        );
      } finally {
        await gateway.stop();
      }
      const sustained = await sustainedFigures(ctx, env, receiver);
      if (receiver.badSignatures)
        ctx.log(
          `events: ${receiver.badSignatures} of ${receiver.received} events had a tollgate-signature that did not verify`,
        );
      const commit = summarize(sinceCommit);
      return {
        events: {
          create_rps: on.rps,
          create_rps_off: off.rps,
          create_cost_pct: round(((off.rps - on.rps) / off.rps) * 100, 1),
          create_cpu_ms_per_request: round(on.cpu, 3),
          create_cpu_ms_per_request_off: round(off.cpu, 3),
          delivered_per_s_under_load: round(on.deliveredPerS, 0),
          delivered_per_s_after_load: round(on.deliveredPerSAfter, 0),
          events_per_post_under_load: round(on.eventsPerPost, 1),
          delivery_lag_ms: { p50: lag.lag.p50, p99: lag.lag.p99, max: lag.lag.max, n: lag.lag.n },
          since_commit_ms: { p50: commit.p50, p99: commit.p99, max: commit.max, n: commit.n },
          bad_signatures: receiver.badSignatures,
          ...sustained,
        },
      };
    } finally {
      await receiver.close();
    }
  },
};
