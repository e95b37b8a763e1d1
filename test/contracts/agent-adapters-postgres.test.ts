/**
 * The coding-agent adapter contract on PostgreSQL (a database per test): the store parts of it — the agent columns,
 * the `?agent_kind=` / `?repo=` filters, the same-call lookup by agent kind and working directory behind deferred
 * verdicts — for two agents whose answers differ most (Codex prints nothing to allow; Gemini CLI always JSON).
 *
 * Over 30 s: every case of the contract for two agents, each on a PostgreSQL database and a gateway of its own, made
 * and dropped around it; the hook runs in process.
 */
import { freshDatabase } from '../integration/postgres/fresh-database.js';
import { runAgentAdapterContract, type HookRun } from './agent-adapter.contract.js';

const database = { fresh: () => freshDatabase() };
const json = (run: HookRun) =>
  run.stdout.trim()
    ? (JSON.parse(run.stdout) as {
        decision?: string;
        reason?: string;
        hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string };
      })
    : {};

runAgentAdapterContract(
  {
    kind: 'codex',
    toolName: 'Bash',
    input: (command, cwd) => ({
      session_id: 's-codex',
      cwd,
      hook_event_name: 'PreToolUse',
      model: 'gpt-5-codex',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 'call_1',
    }),
    read(run) {
      if (run.code === 2) return { decision: 'deny', reason: run.stderr };
      const out = json(run).hookSpecificOutput;
      return out
        ? { decision: out.permissionDecision === 'deny' ? 'deny' : 'allow', reason: out.permissionDecisionReason ?? '' }
        : { decision: 'allow', reason: '' };
    },
  },
  database,
);

runAgentAdapterContract(
  {
    kind: 'gemini',
    toolName: 'run_shell_command',
    input: (command, cwd) => ({
      session_id: 's-gemini',
      cwd,
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command },
    }),
    read(run) {
      const out = json(run);
      return { decision: out.decision === 'deny' ? 'deny' : 'allow', reason: out.reason ?? '' };
    },
  },
  database,
);
