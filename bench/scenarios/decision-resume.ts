/**
 * @module bench/scenarios/decision-resume
 * `decision_to_resume_ms`: from sending a decision to the waiting long-poll's response. Requests are created in
 * batches, a long-poll is parked on each, the orchestrator confirms the gateway is idle (every waiter registered),
 * then the decisions go one at a time so each latency is measured alone.
 */
import { freshGateway, type BenchContext, type Scenario } from '../context.js';
import { BenchHttp, pool, type HttpResult } from '../http-client.js';
import type { Ask, ClientTask } from '../protocol.js';
import { BENCH_TOKEN, type ServerProcess } from '../processes.js';
import { phaseCpu, waitIdle } from '../proc.js';
import { round, summarize, type Percentiles } from '../stats.js';

/** A request as the API returns it (the fields the bench reads). */
export interface ApiRequest {
  id: string;
  status: string;
  nonce?: string;
  expires_at: string;
  responded_at: string | null;
}

/** Parameters of {@link measureResume}. */
export interface ResumeParams {
  url: string;
  token: string;
  count: number;
  batch: number;
}

/**
 * The measuring loop shared by every way of deciding: `decide(request)` sends one decision and resolves with its
 * HTTP answer. Returns decision→resume and decision round-trip percentiles.
 */
export async function measureResume(
  p: ResumeParams,
  ask: Ask,
  create: (http: BenchHttp, i: number) => Promise<ApiRequest>,
  decide: (request: ApiRequest) => Promise<HttpResult>,
): Promise<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }> {
  const http = new BenchHttp(p.url, p.token, 16);
  const polls = new BenchHttp(p.url, p.token, p.batch + 8);
  const resume: number[] = [];
  const decisionRtt: number[] = [];
  let notParked = 0;
  try {
    for (let done = 0; done < p.count; done += p.batch) {
      const size = Math.min(p.batch, p.count - done);
      const requests = await pool(size, 16, (i) => create(http, done + i));
      const waits = requests.map((r) => polls.send('GET', `/v1/requests/${r.id}?wait=50`));
      // Every long-poll must be parked in the gateway before the first decision goes out.
      await ask('idle');
      // CPU per decision is counted over the decisions alone, not the creates and long-polls around them.
      await ask('mark', 'start');
      for (let i = 0; i < size; i++) {
        const started = performance.now();
        const answer = await decide(requests[i]!);
        if (answer.status !== 200)
          throw new Error(`decision on ${requests[i]!.id} -> ${answer.status}: ${answer.body.slice(0, 300)}`);
        const resumed = await waits[i]!;
        const body = JSON.parse(resumed.body) as ApiRequest;
        if (body.status === 'pending') throw new Error(`long-poll on ${body.id} answered pending`);
        if (resumed.doneAt < started) notParked++;
        resume.push(resumed.doneAt - started);
        decisionRtt.push(answer.doneAt - started);
      }
      await ask('mark', 'end');
    }
    return { resume: summarize(resume), decision_rtt: summarize(decisionRtt), not_parked: notParked };
  } finally {
    http.close();
    polls.close();
  }
}

/** Creates a plain web-channel request. */
export async function createWebRequest(
  http: BenchHttp,
  i: number,
  extra: Record<string, unknown> = {},
): Promise<ApiRequest> {
  return http.json<ApiRequest>(
    'POST',
    '/v1/requests',
    { tool_name: 'bench.deploy', tool_args: { service: 'api', build: i }, timeout_s: 600, ...extra },
    201,
  );
}

/** Decisions through `POST /v1/requests/:id/decision`. */
const api: ClientTask = async (raw, ask) => {
  const p = raw as unknown as ResumeParams;
  const decider = new BenchHttp(p.url, p.token, 1);
  try {
    return await measureResume(
      p,
      ask,
      (http, i) => createWebRequest(http, i),
      (r) =>
        decider.send('POST', `/v1/requests/${r.id}/decision`, {
          decision: 'approve',
          approver: 'web:bench-approver',
          reason: 'bench',
        }),
    );
  } finally {
    decider.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { api };

/** What {@link measureDecisions} measured on one gateway. */
export interface DecisionFigures {
  decision_to_resume_ms: { p50: number; p99: number; max: number; n: number };
  decision_rtt_ms: { p50: number; p99: number };
  /** The gateway's CPU per decision (with the long-poll it answers). */
  decision_cpu_ms_per_request: number;
  /** PostgreSQL's CPU per decision, where the audit chain's trigger runs (postgres mode only). */
  decision_db_cpu_ms_per_request?: number;
  /** The load client's CPU per decision (with its long-poll): docs/performance.md, "Capacity". */
  decision_client_cpu_ms_per_request: number;
}

/** `count` decisions through the API route on a running gateway, each with a long-poll parked on its request. */
export async function measureDecisions(
  ctx: BenchContext,
  gateway: ServerProcess,
  count: number,
  batch = 100,
): Promise<DecisionFigures> {
  const cpu = phaseCpu(gateway.pid, ctx.mode === 'postgres', ctx.client.pid);
  const result = await ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
    'decision-resume',
    'api',
    { url: gateway.url, token: BENCH_TOKEN, count, batch },
    { idle: () => waitIdle(gateway.pid), mark: (phase) => (phase === 'start' ? cpu.start() : cpu.stop()) },
  );
  const perDecision = cpu.msPer(count);
  if (result.not_parked)
    ctx.log(`decision_to_resume: ${result.not_parked} long-polls answered before their decision was sent`);
  return {
    decision_to_resume_ms: {
      p50: result.resume.p50,
      p99: result.resume.p99,
      max: result.resume.max,
      n: result.resume.n,
    },
    decision_rtt_ms: { p50: result.decision_rtt.p50, p99: result.decision_rtt.p99 },
    decision_cpu_ms_per_request: round(perDecision.gateway, 3),
    ...(perDecision.database === null ? {} : { decision_db_cpu_ms_per_request: round(perDecision.database, 3) }),
    decision_client_cpu_ms_per_request: round(perDecision.client!, 3),
  };
}

/** `decision_to_resume_ms` through the API route. */
export const decisionResumeScenario: Scenario = {
  name: 'decision_to_resume',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const gateway = await freshGateway(ctx, 'decision');
    try {
      return { ...(await measureDecisions(ctx, gateway, ctx.quick ? 200 : 1000)) };
    } finally {
      await gateway.stop();
    }
  },
};
