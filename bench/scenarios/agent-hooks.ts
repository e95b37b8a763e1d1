/**
 * @module bench/scenarios/agent-hooks
 * Every coding agent's `tollgate hook <agent>` as users run it — `node <clone>/bin/tollgate.js hook <agent>`, the
 * command `tollgate init` writes, in a clone after `npm install` (which builds the hook bundle the bin runs) — a fresh
 * `node` per tool call, each with its agent's hook input: its wall time for a call the policy allows, and its overhead
 * over a bare `node -e 0` measured interleaved with it; and the deferred retry's time to allow: once a human approved
 * a call whose first attempt was deferred, how long the agent's retry takes to be allowed (a fresh hook process that
 * finds the approval and uses it up).
 */
import { spawn } from 'node:child_process';
import { BENCH_TOKEN } from '../processes.js';
import { round, summarize } from '../stats.js';

/** Each coding agent's hook input for a shell `command` (as in test/contracts/agent-adapters.test.ts). */
export function agentInput(agent: string, command: string): unknown {
  switch (agent) {
    case 'claude':
      return {
        session_id: 's',
        cwd: '/srv/app',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: `toolu_${process.hrtime.bigint()}`,
      };
    case 'codex':
      return {
        session_id: 's',
        cwd: '/srv/app',
        hook_event_name: 'PreToolUse',
        model: 'm',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: 'c',
      };
    case 'gemini':
      return {
        session_id: 's',
        cwd: '/srv/app',
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command },
      };
    case 'qwen':
      return {
        session_id: 's',
        cwd: '/srv/app',
        hook_event_name: 'PreToolUse',
        tool_name: 'run_shell_command',
        tool_input: { command },
      };
    case 'opencode':
      return { tool: 'bash', sessionID: 's', callID: 'c', args: { command }, directory: '/srv/app' };
    case 'cline':
      return {
        taskId: 't',
        workspaceRoots: ['/srv/app'],
        preToolUse: { toolName: 'run_commands', parameters: { command } },
      };
    case 'copilot':
      return { cwd: '/srv/app', toolName: 'bash', toolArgs: JSON.stringify({ command }) };
    default:
      return {
        hook_event_name: 'beforeShellExecution',
        conversation_id: 's',
        workspace_roots: ['/srv/app'],
        command,
        cwd: '/srv/app',
      };
  }
}

/** Every agent `tollgate hook` serves. */
export const AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'cline', 'copilot', 'cursor'];

/** Runs `tollgate hook <agent>` once for `command`; resolves with the wall time in ms and what it printed. */
export async function agentHookOnce(
  bin: string,
  url: string,
  agent: string,
  command: string,
  flags: string[] = [],
): Promise<{ ms: number; code: number | null; out: string }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [bin, 'hook', agent, ...flags], {
    env: { ...process.env, TOLLGATE_URL: url, TOLLGATE_TOKEN: BENCH_TOKEN },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stdin.end(JSON.stringify(agentInput(agent, command)));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, code, out };
}

/** Wall time of a bare `node -e 0` in `env`: the floor under any command hook written for node. */
export async function nodeStartOnce(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** A request's id, by API, once the hook filed it. */
async function pendingId(url: string, agent: string, command: string): Promise<string> {
  const response = await fetch(`${url}/v1/requests?status=pending&agent_kind=${agent}&limit=20`, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
  });
  const { items } = (await response.json()) as { items: { id: string; tool_args: { command?: string } }[] };
  const found = items.find((r) => r.tool_args.command === command);
  if (!found) throw new Error(`no pending request of ${agent} for ${command}`);
  return found.id;
}

/**
 * Each agent's hook for an allowed `ls` (`runs` calls, interleaved with bare node), and its deferred retry's time to
 * allow (`runs` retries, each after a first attempt deferred at once and an approval through the API).
 */
export async function measureAgentHooks(bin: string, url: string, runs: number) {
  const allow: Record<string, { p50: number; p99: number; overhead_p50: number }> = {};
  const retry: Record<string, { p50: number; p99: number }> = {};
  for (const agent of AGENTS) {
    await agentHookOnce(bin, url, agent, 'ls'); // warm the file cache
    const times: number[] = [];
    const nodeTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const call = await agentHookOnce(bin, url, agent, 'ls');
      if (call.code !== 0) throw new Error(`tollgate hook ${agent} answered ${call.code}: ${call.out.slice(0, 300)}`);
      times.push(call.ms);
      nodeTimes.push(await nodeStartOnce());
    }
    const a = summarize(times);
    allow[agent] = { p50: a.p50, p99: a.p99, overhead_p50: round(a.p50 - summarize(nodeTimes).p50) };

    const retries: number[] = [];
    for (let i = 0; i < runs; i++) {
      const command = `terraform apply -target=bench.${i}.${Date.now()}`;
      // --wait 0.6: the hook asks the gateway to wait 0.1 s, then answers deferred.
      const first = await agentHookOnce(bin, url, agent, command, ['--wait', '0.6']);
      if (!first.out.includes('/ui/requests/'))
        throw new Error(`tollgate hook ${agent} did not defer: ${first.out.slice(0, 300)}`);
      const id = await pendingId(url, agent, command);
      const decided = await fetch(`${url}/v1/requests/${id}/decision`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve', approver: 'web:bench' }),
      });
      if (decided.status !== 200)
        throw new Error(`approving ${id} answered ${decided.status}: ${await decided.text()}`);
      const again = await agentHookOnce(bin, url, agent, command, ['--wait', '30']);
      if (again.code !== 0 || again.out.includes('Waiting for approval') || /"deny"|"cancel":true/.test(again.out))
        throw new Error(`tollgate hook ${agent}'s retry was not allowed: ${again.out.slice(0, 300)}`);
      retries.push(again.ms);
    }
    const r = summarize(retries);
    retry[agent] = { p50: r.p50, p99: r.p99 };
  }
  return { agent_hook_allow_ms: allow, agent_deferred_retry_allow_ms: retry };
}
