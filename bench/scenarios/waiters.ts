/**
 * @module bench/scenarios/waiters
 * `waiters_10k`: 10,000 long-polls parked on one gateway process, then all decided. The 10,000 pending requests are
 * written into the file before the gateway starts (creation has its own figure). RSS is the gateway process's
 * (sampled from /proc every 100 ms, peak over the whole scenario); `all_resumed_ms` runs from the last decision's
 * answer to the last long-poll's answer.
 *
 * Its floor, `floor.waiters_10k`, is measured in the same run by the same client task against the bare node:http
 * server (`floor-server.ts`), which parks each long-poll until its decision and does nothing else: what node itself
 * costs for 10,000 parked calls, that the gateway's RSS is judged against.
 */
import { join } from 'node:path';
import type { Scenario } from '../context.js';
import { BenchHttp, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN, startFloorServer, startGateway, type ServerProcess } from '../processes.js';
import { rssMb, rssSampler, waitIdle } from '../proc.js';
import { seedForMode } from '../seed-pending.js';
import { round, summarize, type Percentiles } from '../stats.js';
import type { ApiRequest } from './decision-resume.js';

interface WaitersParams {
  url: string;
  token: string;
  ids: string[];
}

/** What the client measures. */
interface WaitersResult {
  rss_holding_mb: number;
  all_resumed_ms: number;
  decide_window_ms: number;
  resume_after_own_decision_ms: Percentiles;
  not_approved: number;
  /** Decisions not sent because deciding took longer than the long-polls' 55 s. */
  not_decided: number;
  /** Long-polls that failed after parking (no HTTP answer), and the first one's error. */
  poll_errors: number;
  first_poll_error: string | null;
}

const hold: ClientTask = async (raw, ask) => {
  const p = raw as unknown as WaitersParams;
  const http = new BenchHttp(p.url, p.token, 64);
  const polls = new BenchHttp(p.url, p.token, p.ids.length + 16);
  try {
    const requests = p.ids.map((id) => ({ id }));
    const count = requests.length;
    const waits: Promise<{ status: number; body: string; doneAt: number }>[] = [];
    // Open the long-polls in steps of 1,000, letting the gateway take each step in before the next: a burst of 10,000
    // connects overflows node's default listen backlog (511) and the overflowed ones are reset ~20 s later.
    const opened = performance.now();
    const errors: string[] = [];
    for (let i = 0; i < requests.length; i++) {
      waits.push(
        polls.send('GET', `/v1/requests/${requests[i]!.id}?wait=55`).catch((error: unknown) => {
          errors.push(
            `${round(performance.now() - opened, 0)} ms after opening: ${error instanceof Error ? error.message : String(error)}`,
          );
          return { status: 0, body: '{}', doneAt: Number.NaN };
        }),
      );
      if (i % 1000 === 999) await ask('idle');
    }
    await ask('idle');
    if (errors.length) throw new Error(`${errors.length} long-polls failed while parking, first: ${errors[0]}`);
    const rssHolding = (await ask('rss')) as number;
    const decidedAt = new Array<number>(count);
    const decideStart = performance.now();
    let skipped = 0;
    const answers = await pool(count, 64, async (i) => {
      const started = performance.now();
      // Past 50 s the parked long-polls (wait=55) are timing out anyway: stop, and report how many were decided.
      if (started - decideStart > 50_000) {
        skipped++;
        return Number.NaN;
      }
      const res = await http.send('POST', `/v1/requests/${requests[i]!.id}/decision`, {
        decision: 'approve',
        approver: 'web:bench-approver',
      });
      if (res.status !== 200) throw new Error(`decision -> ${res.status}: ${res.body.slice(0, 200)}`);
      decidedAt[i] = started;
      return res.doneAt;
    });
    const lastDecision = Math.max(...answers.filter((t) => !Number.isNaN(t)));
    const resumed = await Promise.all(waits);
    const lastResume = Math.max(...resumed.map((r) => r.doneAt));
    // An answer that is no approved request: a failed long-poll (counted in poll_errors too) or an error status.
    const notApproved = resumed.filter((r) => (JSON.parse(r.body) as ApiRequest).status !== 'approved');
    return {
      rss_holding_mb: rssHolding,
      all_resumed_ms: skipped ? Number.NaN : round(Math.max(0, lastResume - lastDecision)),
      not_decided: skipped,
      decide_window_ms: round(lastDecision - decideStart),
      resume_after_own_decision_ms: summarize(resumed.map((r, i) => r.doneAt - decidedAt[i]!)),
      not_approved: notApproved.length,
      poll_errors: errors.length,
      first_poll_error: errors[0] ?? notApproved.find((r) => r.status !== 0)?.body.slice(0, 300) ?? null,
    } satisfies WaitersResult;
  } finally {
    http.close();
    polls.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { hold };

/** Runs the client's `hold` task against `server`; resolves with its figures, the peak RSS and the idle RSS before. */
async function holdOn(
  ctx: Parameters<Scenario['run']>[0],
  server: ServerProcess,
  ids: string[],
): Promise<{ result: WaitersResult; peak: number; idle: number }> {
  await waitIdle(server.pid, 30_000);
  const rss = rssSampler(server.pid);
  const idle = rssMb(server.pid);
  try {
    const result = await ctx.client.run<WaitersResult>(
      'waiters',
      'hold',
      { url: server.url, token: BENCH_TOKEN, ids },
      { idle: () => waitIdle(server.pid, 30_000), rss: () => rssMb(server.pid) },
    );
    return { result, peak: rss.stop(), idle };
  } finally {
    rss.stop();
  }
}

/** `waiters_10k.{rss_mb,all_resumed_ms}` and its floor, `floor.waiters_10k.rss_mb`. */
export const waitersScenario: Scenario = {
  name: 'waiters_10k',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const { ids, db: dbPath } = await seedForMode(ctx, 'waiters', ctx.quick ? 2000 : 10_000, 0);
    const floorServer = await startFloorServer();
    let floor: Awaited<ReturnType<typeof holdOn>>;
    try {
      floor = await holdOn(ctx, floorServer, ids);
    } finally {
      await floorServer.stop();
    }
    const gateway = await startGateway({
      dbPath,
      env: ctx.gatewayEnv,
      cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-waiters`) : undefined,
    });
    try {
      const { result, peak, idle: idleRss } = await holdOn(ctx, gateway, ids);
      if (result.not_decided) ctx.log(`waiters_10k: deciding took over 50 s; ${result.not_decided} decisions not sent`);
      if (result.not_approved)
        ctx.log(
          `waiters_10k: ${result.not_approved} long-polls did not answer approved (${result.poll_errors} failed; first: ${result.first_poll_error})`,
        );
      return {
        floor: {
          waiters_10k: {
            rss_mb: round(floor.peak, 0),
            rss_holding_mb: round(floor.result.rss_holding_mb, 0),
            rss_idle_mb: round(floor.idle, 0),
            kb_per_waiter: round(((floor.result.rss_holding_mb - floor.idle) * 1024) / ids.length, 1),
            not_approved: floor.result.not_approved,
          },
        },
        waiters_10k: {
          rss_mb: round(peak, 0),
          all_resumed_ms: result.all_resumed_ms,
          rss_holding_mb: round(result.rss_holding_mb, 0),
          rss_idle_mb: round(idleRss, 0),
          // What one parked long-poll costs the gateway: connection, request, waiter and its timer.
          kb_per_waiter: round(((result.rss_holding_mb - idleRss) * 1024) / ids.length, 1),
          decide_window_ms: result.decide_window_ms,
          resume_after_own_decision_ms: {
            p50: result.resume_after_own_decision_ms.p50,
            p99: result.resume_after_own_decision_ms.p99,
          },
          not_approved: result.not_approved,
          poll_errors: result.poll_errors,
          first_poll_error: result.first_poll_error,
          not_decided_within_50s: result.not_decided,
        },
      };
    } finally {
      await gateway.stop();
    }
  },
};
