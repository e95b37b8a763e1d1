/**
 * @module bench/scenarios/expiry
 * `expiry_lateness_ms`: 10,000 requests whose `expires_at` all fall in the same second. Lateness is
 * `responded_at − expires_at` as the gateway recorded it, for every request; for one in ten a long-poll also waits,
 * and `expiry_observed_lateness_ms` is when that waiter heard of it minus `expires_at`.
 */
import { freshGateway, type Scenario } from '../context.js';
import { BenchHttp, pool } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { waitIdle } from '../proc.js';
import { round, sleep, summarize, type Percentiles } from '../stats.js';
import type { ApiRequest } from './decision-resume.js';

interface ExpiryParams {
  url: string;
  token: string;
  count: number;
  /** How far ahead the common expiry second is, so that every request is filed before it. */
  leadMs: number;
}

interface ExpiryResult {
  lateness: Percentiles;
  observed: Percentiles;
  expired: number;
  still_pending: number;
  filed_after_expiry_second: number;
  expiry_second: string;
}

const expireTogether: ClientTask = async (raw, ask) => {
  const p = raw as unknown as ExpiryParams;
  const http = new BenchHttp(p.url, p.token, 64);
  const polls = new BenchHttp(p.url, p.token, Math.ceil(p.count / 10) + 16);
  const epochNow = () => performance.timeOrigin + performance.now();
  try {
    const second = Math.ceil((Date.now() + p.leadMs) / 1000) * 1000;
    let late = 0;
    const waits: Promise<{ status: number; body: string; doneAt: number }>[] = [];
    // Like a real agent: a long-poll that ends while still pending is sent again.
    const waitFinal = async (id: string) => {
      for (;;) {
        const res = await polls.send('GET', `/v1/requests/${id}?wait=55`);
        if (res.status !== 200 || (JSON.parse(res.body) as ApiRequest).status !== 'pending') return res;
      }
    };
    await pool(p.count, 64, async (i) => {
      // Whole seconds, counted from now: expires_at lands in [second, second + 1 s).
      const timeoutS = Math.max(1, Math.ceil((second - Date.now()) / 1000));
      if (Date.now() >= second) late++;
      const request = await http.json<ApiRequest>(
        'POST',
        '/v1/requests',
        { tool_name: 'bench.rotate_key', tool_args: { key: i }, timeout_s: timeoutS },
        201,
      );
      if (i % 10 === 0) waits.push(waitFinal(request.id));
    });
    const observed = await Promise.all(
      waits.map(async (w) => {
        const res = await w;
        const body = JSON.parse(res.body) as ApiRequest;
        if (body.status !== 'expired') throw new Error(`waiter on ${body.id} answered ${body.status}`);
        return performance.timeOrigin + res.doneAt - Date.parse(body.expires_at);
      }),
    );
    // Give the gateway the rest of the second plus a margin, then wait until it is done.
    while (epochNow() < second + 1500) await sleep(100);
    await ask('idle');
    const lateness: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: ApiRequest[]; next_cursor: string | null } = await http.json(
        'GET',
        `/v1/requests?status=expired&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const r of page.items) lateness.push(Date.parse(r.responded_at!) - Date.parse(r.expires_at));
      cursor = page.next_cursor;
    } while (cursor);
    const pending: { items: ApiRequest[] } = await http.json('GET', '/v1/requests?status=pending&limit=500');
    return {
      lateness: summarize(lateness),
      observed: summarize(observed),
      expired: lateness.length,
      still_pending: pending.items.length,
      filed_after_expiry_second: late,
      expiry_second: new Date(second).toISOString(),
    } satisfies ExpiryResult;
  } finally {
    http.close();
    polls.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { expireTogether };

/** `expiry_lateness_ms.{p50,p99}`. */
export const expiryScenario: Scenario = {
  name: 'expiry_lateness',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const count = ctx.quick ? 2000 : 10_000;
    // File everything before the common second: the time at the create rate measured earlier, plus 30 %, plus 5 s.
    const rate =
      typeof ctx.earlier.create_rps === 'number' && ctx.earlier.create_rps > 0 ? ctx.earlier.create_rps : 1000;
    const leadMs = Math.min(240_000, Math.round((count / rate) * 1300) + 5000);
    const gateway = await freshGateway(ctx, 'expiry');
    try {
      const result = await ctx.client.run<ExpiryResult>(
        'expiry',
        'expireTogether',
        { url: gateway.url, token: BENCH_TOKEN, count, leadMs },
        { idle: () => waitIdle(gateway.pid, 30_000) },
      );
      if (result.expired !== count || result.still_pending)
        ctx.log(`expiry: ${result.expired}/${count} expired, ${result.still_pending} still pending`);
      if (result.filed_after_expiry_second)
        ctx.log(`expiry: ${result.filed_after_expiry_second} requests were filed after the common second began`);
      return {
        expiry_lateness_ms: {
          p50: result.lateness.p50,
          p99: result.lateness.p99,
          max: result.lateness.max,
          n: result.lateness.n,
        },
        expiry_observed_lateness_ms: {
          p50: result.observed.p50,
          p99: result.observed.p99,
          max: result.observed.max,
          n: result.observed.n,
        },
        expiry_check: { expired: result.expired, still_pending: result.still_pending, lead_s: round(leadMs / 1000, 1) },
      };
    } finally {
      await gateway.stop();
    }
  },
};
