/**
 * Every coding agent's adapter against the one contract (`agent-adapter.contract.ts`): how each agent asks to run a
 * shell command, and how it reads the answer — per its documented hook shapes (PLATFORMS.md, "Coding agents' hooks";
 * the real CLIs run in test/agents/).
 *
 * Over 30 s under the full suite's load (33 s in CI): eight agents × eleven scenarios, each on a gateway
 * of its own, several waiting out a real `--wait` of 1–5 s (deferred verdicts, expiry, an unreachable gateway).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runAgentAdapterContract, runHook, type HookRun } from './agent-adapter.contract.js';

type Args = Record<string, unknown>;
/** Every field the agents' answers use (each agent reads its own). */
interface Answer {
  hookSpecificOutput?: {
    permissionDecision?: string;
    permissionDecisionReason?: string;
    updatedInput?: Args;
    tool_input?: Args;
  };
  decision?: string;
  reason?: string;
  allow?: boolean;
  args?: Args;
  cancel?: boolean;
  errorMessage?: string;
  permission?: string;
  agent_message?: string;
  user_message?: string;
  permissionDecision?: string;
  permissionDecisionReason?: string;
  modifiedArgs?: Args;
}
const json = (run: HookRun): Answer => (run.stdout.trim() ? (JSON.parse(run.stdout) as Answer) : {});
/** Exit 2 blocks in every agent that reads exit codes; what the model reads is then stderr. */
const blocked = (run: HookRun) => run.code === 2;

// Claude Code: `tollgate hook claude` is `tollgate claude-hook`. Every tool call has its own tool_use_id, a retry too.
runAgentAdapterContract({
  kind: 'claude',
  toolName: 'Bash',
  input: (command, cwd) => ({
    session_id: 's-claude',
    transcript_path: '/tmp/t.jsonl',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: `toolu_${randomUUID()}`,
  }),
  // Claude Code: exit 2 blocks with stderr for the model; else hookSpecificOutput.
  read(run) {
    if (blocked(run)) return { decision: 'deny', reason: run.stderr };
    const out = json(run).hookSpecificOutput ?? {};
    return {
      decision: out.permissionDecision === 'allow' ? 'allow' : 'deny',
      reason: out.permissionDecisionReason ?? '',
      args: out.updatedInput,
    };
  },
});

runAgentAdapterContract({
  kind: 'codex',
  toolName: 'Bash',
  input: (command, cwd) => ({
    session_id: 's-codex',
    turn_id: 't1',
    cwd,
    hook_event_name: 'PreToolUse',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'call_1',
  }),
  // Codex: nothing on stdout allows; a deny is hookSpecificOutput, or exit 2 with the reason on stderr.
  read(run) {
    if (blocked(run)) return { decision: 'deny', reason: run.stderr };
    const out = json(run).hookSpecificOutput;
    return out
      ? { decision: out.permissionDecision === 'deny' ? 'deny' : 'allow', reason: out.permissionDecisionReason ?? '' }
      : { decision: 'allow', reason: '' };
  },
});

runAgentAdapterContract({
  kind: 'gemini',
  toolName: 'run_shell_command',
  input: (command, cwd) => ({
    session_id: 's-gemini',
    transcript_path: '/tmp/t.json',
    cwd,
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-28T07:00:00Z',
    tool_name: 'run_shell_command',
    tool_input: { command, description: 'run it' },
  }),
  // Gemini CLI reads the JSON whatever the exit code.
  read(run) {
    const out = json(run);
    return {
      decision: out.decision === 'deny' || out.decision === 'block' ? 'deny' : 'allow',
      reason: out.reason ?? '',
      args: out.hookSpecificOutput?.tool_input,
    };
  },
});

runAgentAdapterContract({
  kind: 'qwen',
  toolName: 'run_shell_command',
  input: (command, cwd) => ({
    session_id: 's-qwen',
    cwd,
    hook_event_name: 'PreToolUse',
    permission_mode: 'default',
    tool_name: 'run_shell_command',
    tool_input: { command },
    tool_use_id: 'call_q',
  }),
  read(run) {
    if (blocked(run)) return { decision: 'deny', reason: run.stderr };
    const out = json(run).hookSpecificOutput ?? {};
    return {
      decision: out.permissionDecision === 'allow' ? 'allow' : 'deny',
      reason: out.permissionDecisionReason ?? '',
      args: out.updatedInput,
    };
  },
});

runAgentAdapterContract({
  kind: 'opencode',
  toolName: 'bash',
  input: (command, cwd) => ({ tool: 'bash', sessionID: 'ses_1', callID: 'call_o', args: { command }, directory: cwd }),
  // The plugin tollgate init writes throws unless it reads {"allow": true} with exit 0.
  read(run) {
    const out = json(run);
    return run.code === 0 && out.allow === true
      ? { decision: 'allow', reason: out.reason ?? '', args: out.args }
      : { decision: 'deny', reason: out.reason ?? run.stderr };
  },
});

runAgentAdapterContract({
  kind: 'cline',
  toolName: 'execute_command',
  input: (command, cwd) => ({
    clineVersion: '3.36.0',
    hookName: 'PreToolUse',
    timestamp: '1764313200000',
    taskId: 'task-1',
    workspaceRoots: [cwd],
    userId: 'u1',
    preToolUse: { toolName: 'execute_command', parameters: { command, requires_approval: 'false' } },
  }),
  read(run) {
    const out = json(run);
    return out.cancel === false && run.code === 0
      ? { decision: 'allow', reason: '' }
      : { decision: 'deny', reason: out.errorMessage ?? run.stderr };
  },
});

runAgentAdapterContract({
  kind: 'copilot',
  toolName: 'bash',
  input: (command, cwd) => ({
    timestamp: 1764313200000,
    cwd,
    toolName: 'bash',
    toolArgs: JSON.stringify({ command, description: 'run it' }),
  }),
  read(run) {
    const out = json(run);
    return {
      decision: out.permissionDecision === 'allow' && run.code === 0 ? 'allow' : 'deny',
      reason: out.permissionDecisionReason ?? run.stderr,
      args: out.modifiedArgs,
    };
  },
});

// Cursor's editor is not on npm: its hook protocol is tested from the documented shapes only.
runAgentAdapterContract({
  kind: 'cursor',
  toolName: 'Shell',
  input: (command, cwd) => ({
    hook_event_name: 'beforeShellExecution',
    conversation_id: 'conv-1',
    generation_id: 'gen-1',
    workspace_roots: [cwd],
    model: 'claude-4.5-sonnet',
    command,
    cwd,
  }),
  read(run) {
    const out = json(run);
    return {
      decision: out.permission === 'allow' ? 'allow' : 'deny',
      reason: out.agent_message ?? out.user_message ?? run.stderr,
    };
  },
});

// Cline's hook sees every tool, the one that ends the task too: were those gated, every task would end waiting for a
// human to approve "done". No gateway answers here (port 9): a gated tool is refused, an ungated one passes at once.
describe('tollgate hook cline: tools that only speak to the user', () => {
  const input = (toolName: string, parameters: Args) =>
    JSON.stringify({
      clineVersion: '3.0.65',
      hookName: 'PreToolUse',
      timestamp: '1764313200000',
      taskId: 'task-1',
      workspaceRoots: ['/tmp'],
      userId: 'u1',
      preToolUse: { toolName, parameters },
    });
  const unreachable = { TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: 't' };

  it.each([
    ['submit_and_exit', { summary: 'Ran the command and checked its output.' }],
    ['ask_question', { question: 'Which branch?' }],
    ['attempt_completion', { result: 'Done.' }],
  ])('allows %s without asking anyone', async (tool, parameters) => {
    const run = await runHook(['cline', '--wait', '1'], input(tool, parameters), unreachable);
    expect(run.code).toBe(0);
    expect(json(run).cancel).toBe(false);
  });

  it('still asks for a tool that acts (run_commands), and fails closed when nobody answers', async () => {
    const run = await runHook(['cline', '--wait', '1'], input('run_commands', { commands: ['ls'] }), unreachable);
    expect(json(run).cancel).toBe(true);
    expect(json(run).errorMessage).toMatch(/cannot reach the gateway/);
  });
});
