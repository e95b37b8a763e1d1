/**
 * @module bench/scenarios/waiters
 * `waiters_10k`: 10,000 long-polls parked on one gateway process, then all decided. RSS is the gateway process's
 * (sampled from /proc every 100 ms, peak over the whole scenario); `all_resumed_ms` runs from the last decision's
 * answer to the last long-poll's answer.
 */
import { freshGateway, type Scenario } from '../context.js';
import { BenchHttp, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN, rssMb, rssSampler, waitIdle } from '../processes.js';
import { round, sleep, summarize, type Percentiles } from '../stats.js';
import { createWebRequest, type ApiRequest } from './decision-resume.js';

interface WaitersParams {
  url: string;
  token: string;
  count: number;
}

/** What the client measures. */
interface WaitersResult {
  rss_holding_mb: number;
  all_resumed_ms: number;
  decide_window_ms: number;
  resume_after_own_decision_ms: Percentiles;
  not_approved: number;
}

const hold: ClientTask = async (raw, ask) => {
  const p = raw as unknown as WaitersParams;
  const http = new BenchHttp(p.url, p.token, 64);
  const polls = new BenchHttp(p.url, p.token, p.count + 16);
  try {
    const requests = await pool(p.count, 64, (i) => createWebRequest(http, i));
    const waits: Promise<{ status: number; body: string; doneAt: number }>[] = [];
    // Open the long-polls in steps so the listen backlog never overflows (a dropped SYN costs a 1 s retransmit).
    for (let i = 0; i < requests.length; i++) {
      waits.push(polls.send('GET', `/v1/requests/${requests[i]!.id}?wait=55`));
      if (i % 500 === 499) await sleep(25);
    }
    await ask('idle');
    const rssHolding = (await ask('rss')) as number;
    const decidedAt = new Array<number>(p.count);
    const decideStart = performance.now();
    const answers = await pool(p.count, 64, async (i) => {
      const started = performance.now();
      const res = await http.send('POST', `/v1/requests/${requests[i]!.id}/decision`, { decision: 'approve', approver: 'web:bench-approver' });
      if (res.status !== 200) throw new Error(`decision -> ${res.status}: ${res.body.slice(0, 200)}`);
      decidedAt[i] = started;
      return res.doneAt;
    });
    const lastDecision = Math.max(...answers);
    const resumed = await Promise.all(waits);
    const lastResume = Math.max(...resumed.map((r) => r.doneAt));
    const notApproved = resumed.filter((r) => (JSON.parse(r.body) as ApiRequest).status !== 'approved').length;
    return {
      rss_holding_mb: rssHolding,
      all_resumed_ms: round(Math.max(0, lastResume - lastDecision)),
      decide_window_ms: round(lastDecision - decideStart),
      resume_after_own_decision_ms: summarize(resumed.map((r, i) => r.doneAt - decidedAt[i]!)),
      not_approved: notApproved,
    } satisfies WaitersResult;
  } finally {
    http.close();
    polls.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { hold };

/** `waiters_10k.{rss_mb,all_resumed_ms}`. */
export const waitersScenario: Scenario = {
  name: 'waiters_10k',
  modes: ['sqlite', 'bullmq'],
  async run(ctx) {
    const gateway = await freshGateway(ctx, 'waiters');
    const rss = rssSampler(gateway.pid);
    const idleRss = rssMb(gateway.pid);
    try {
      const result = await ctx.client.run<WaitersResult>(
        'waiters',
        'hold',
        { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 2000 : 10_000 },
        { idle: () => waitIdle(gateway.pid, 30_000), rss: () => rssMb(gateway.pid) },
      );
      if (result.not_approved) ctx.log(`waiters_10k: ${result.not_approved} long-polls did not answer approved`);
      return {
        waiters_10k: {
          rss_mb: round(rss.stop(), 0),
          all_resumed_ms: result.all_resumed_ms,
          rss_holding_mb: round(result.rss_holding_mb, 0),
          rss_idle_mb: round(idleRss, 0),
          decide_window_ms: result.decide_window_ms,
          resume_after_own_decision_ms: { p50: result.resume_after_own_decision_ms.p50, p99: result.resume_after_own_decision_ms.p99 },
          not_approved: result.not_approved,
        },
      };
    } finally {
      rss.stop();
      await gateway.stop();
    }
  },
};
