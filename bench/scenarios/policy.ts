/**
 * @module bench/scenarios/policy
 * `policy_allow`: a call an allow rule answers is on every gated tool call's path. Measures `POST /v1/requests`
 * answered final by a rule (one client, so the figure is the call's own latency; then 64 clients), and `tollgate
 * claude-hook` end to end for an allowed call: a fresh `node` process per call running a clone's `bin/tollgate.js`
 * (this checkout, its hook bundle built as `npm install` builds it), reading the hook JSON on stdin and printing the
 * allow answer, as Claude Code runs it; and a bare `node -e 0` between those calls, on the same node, for what the
 * hook costs beyond node itself. The same for every coding agent's `tollgate hook <agent>` (`agent-hooks.ts`), with
 * the deferred retry's time to allow.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshGateway, type Scenario } from '../context.js';
import { ensureHookBundle, ROOT } from '../../test/helpers/built-package.js';
import { measureAgentHooks, nodeStartOnce } from './agent-hooks.js';
import { BENCH_TOKEN } from '../processes.js';
import { round, summarize, type Percentiles } from '../stats.js';
import { CREATE_BODY, CREATE_CONCURRENCY } from './create-rps.js';

const POLICY = `
policies:
  - name: bench-writes
    match: { tool: "bench.*", when: 'args.path.startsWith("/srv/app/")' }
    decision: allow
  - name: claude-reads
    match: { tool: [Read, Grep, Glob] }
    decision: allow
  - name: agent-reads
    match: { agent_kind: "*", when: 'has(args.command) && args.command == "ls"' }
    decision: allow
  - name: payments
    match: { tool: "payments.*", when: "args.amount > 50000" }
    required_approvals: 2
`;

let hookBin: Promise<string> | null = null;

/** Runs the built `tollgate claude-hook` (`bin` is the package layout's bin/tollgate.js) once for an allowed Read; resolves with the wall time in ms. */
async function hookOnce(bin: string, url: string, i: number, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const input = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: 'bench',
    tool_use_id: `toolu_bench_${i}_${Date.now()}`,
    tool_name: 'Read',
    tool_input: { file_path: `/srv/app/README-${i}.md` },
    cwd: '/srv/app',
  });
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [bin, 'claude-hook'], {
    env: { ...env, TOLLGATE_URL: url, TOLLGATE_TOKEN: BENCH_TOKEN },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0 || !out.includes('"allow"')) throw new Error(`claude-hook answered ${code}: ${out.slice(0, 300)}`);
  return ms;
}

/** `policy_allow`. */
export const policyScenario: Scenario = {
  name: 'policy_allow',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const config = join(ctx.tmp, 'policy.yaml');
    writeFileSync(config, POLICY);
    const gateway = await freshGateway(ctx, 'policy', { TOLLGATE_CONFIG: config });
    try {
      const load = (concurrency: number) =>
        ctx.client.run<{ rps: number; latency_ms: Percentiles; by_status: Record<string, number> }>(
          'http-load',
          'postLoop',
          {
            url: gateway.url,
            token: BENCH_TOKEN,
            path: '/v1/requests',
            concurrency,
            warmupMs: ctx.quick ? 500 : 1000,
            durationMs: ctx.quick ? 2000 : 5000,
            body: CREATE_BODY,
            okStatus: 201,
          },
        );
      const single = await load(1);
      const many = await load(CREATE_CONCURRENCY);
      // As users run it: a clone's bin/tollgate.js, which runs the hook bundle `npm install` built (rebuilt if stale).
      hookBin ??= ensureHookBundle().then(() => join(ROOT, 'bin/tollgate.js'));
      const bin = await hookBin;
      const runs = ctx.quick ? 10 : 30;
      await hookOnce(bin, gateway.url, -1); // warm the file cache
      // Node 20 reads NODE_EXTRA_CA_CERTS at start, before any of our code (some machines, this one included, set
      // it for every process): the same calls without it, and bare node either way, say how much is node's own.
      // Interleaved, so a busy moment of the machine falls on hook and bare node alike.
      const { NODE_EXTRA_CA_CERTS: _extraCa, ...plainEnv } = process.env;
      const hook: number[] = [];
      const plain: number[] = [];
      const bare: number[] = [];
      const barePlain: number[] = [];
      for (let i = 0; i < runs; i++) {
        hook.push(await hookOnce(bin, gateway.url, i));
        bare.push(await nodeStartOnce(process.env));
        plain.push(await hookOnce(bin, gateway.url, runs + i, plainEnv));
        barePlain.push(await nodeStartOnce(plainEnv));
      }
      const h = summarize(hook);
      const b = summarize(bare);
      // Every coding agent's hook (`tollgate hook claude` too), and its deferred retry's time to allow.
      const agents = await measureAgentHooks(bin, gateway.url, runs);
      return {
        policy_allow_latency_ms: { p50: single.latency_ms.p50, p99: single.latency_ms.p99 },
        policy_allow_rps_at_64: many.rps,
        policy_allow_latency_ms_at_64: { p50: many.latency_ms.p50, p99: many.latency_ms.p99 },
        claude_hook_allow_ms: { p50: h.p50, p99: h.p99 },
        claude_hook_node_start_ms: b.p50,
        claude_hook_overhead_ms: { p50: round(h.p50 - b.p50) },
        ...agents,
        ...(process.env.NODE_EXTRA_CA_CERTS === undefined
          ? {}
          : {
              claude_hook_without_extra_ca_ms: { p50: summarize(plain).p50, p99: summarize(plain).p99 },
              claude_hook_node_start_without_extra_ca_ms: summarize(barePlain).p50,
            }),
      };
    } finally {
      await gateway.stop();
    }
  },
};
