/**
 * @module integrations/agent-hook-wire
 * What `tollgate hook <agent>` and `POST /v1/hooks/agent` say to each other. Kept free of imports (types and
 * constants only): the hook is a fresh `node` process per tool call and must not load zod or the API schemas
 * (see `cli/agent-hook.ts`).
 */

/** The route every coding agent's hook asks (Claude Code keeps its own, `/v1/hooks/claude-code`). */
export const AGENT_HOOK_PATH = '/v1/hooks/agent';

/** Where the agent was working, as the hook read it (every field may be null). */
export interface AgentCallContext {
  session_id: string | null;
  cwd: string | null;
  repo: string | null;
  branch: string | null;
  model: string | null;
}

/** The body of `POST /v1/hooks/agent`: one tool call of one coding agent. */
export interface AgentCall {
  /** `codex`, `gemini`, … (the adapter's kind). */
  agent_kind: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  context: AgentCallContext;
  /** The agent's own id of the call, when it sends one (recorded, not used to re-attach). */
  tool_call_id?: string;
}

/**
 * What the route answers (200) for a call:
 * - `allow`: run it (with `updated_args` when an approver edited them);
 * - `deny`: do not; `reason` is written for the model (who decided and why);
 * - `deferred`: nobody has decided yet and the hook must answer now: the agent is told to run the same call again
 *   once it is approved (`reason` names the request and its `url`); the request stays pending.
 */
export interface AgentHookAnswer {
  request_id: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
  outcome: 'allow' | 'deny' | 'deferred';
  reason: string;
  updated_args: Record<string, unknown> | null;
  /** Where a human decides (the web inbox's page of the request). */
  url: string;
}
