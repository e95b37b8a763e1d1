/**
 * @module agents/types
 * The one contract every coding agent's adapter meets (`tollgate hook <agent>`): the agent's hook input becomes a tool
 * call, a verdict becomes the agent's own answer (stdout and exit code). Everything between — where the gateway is,
 * waiting, retrying, deferred verdicts, reading the git repository — is the same for every agent (`cli/agent-hook.ts`),
 * and one contract suite holds every adapter to it (`test/contracts/agent-adapter.contract.ts`).
 *
 * Adapters run inside the hook's one-file bundle (a fresh `node` per tool call): no zod, no packages, node built-ins
 * at most. Import-free apart from types.
 */
import type { AgentKind } from '../requests/agent-kinds.js';

/** A tool call as an adapter reads it from the agent's hook input. */
export interface AgentToolCall {
  tool_name: string;
  tool_args: Record<string, unknown>;
  /** The agent's session (conversation, task) id. */
  session_id: string | null;
  /** The working directory the agent runs the call in (its project root when it sends no cwd). */
  cwd: string | null;
  model: string | null;
  /** The agent's id of this call, when it sends one. */
  tool_call_id?: string;
}

/** What the gateway decided, as an adapter answers it. */
export interface AgentVerdict {
  /** `deferred`: nobody decided before the hook had to answer; the agent must not run the call now. */
  outcome: 'allow' | 'deny' | 'deferred';
  /** For the model: who decided and why, or (deferred) the request's link and what to do next. */
  reason: string;
  /** Arguments an approver edited, to run instead. */
  updatedArgs: Record<string, unknown> | null;
}

/** What the hook process prints and exits with. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** One coding agent's adapter. */
export interface AgentAdapter {
  kind: Exclude<AgentKind, 'claude'>;
  /**
   * Seconds the hook waits before answering "deferred": safely under the agent's default hook timeout (a hook the
   * agent kills lets the command run in most agents). `tollgate init` sets the agent's timeout to match `--wait`.
   */
  defaultWaitS: number;
  /**
   * Tools that only speak to the user in the conversation the user already watches (end the task with a summary, ask
   * a question), never to the world: the hook allows them at once and files nothing. An agent that hooks every tool
   * and can only finish through one would otherwise end each task waiting for a human to approve "done".
   */
  ungated?: readonly string[];
  /** The tool call in a parsed hook input. Throws {@link AgentInputError} naming the field when the input is not one. */
  toCall(input: Record<string, unknown>, env: Record<string, string | undefined>): AgentToolCall;
  /** The agent's answer to a verdict. `input` is the hook input (an agent may answer per event). */
  answer(verdict: AgentVerdict, input: Record<string, unknown>): HookAnswer;
  /**
   * The agent's fail-closed answer: malformed input, a gateway that cannot be reached or refuses the call. Must stop
   * the call in every agent, whatever it does with exit codes and stdout.
   */
  refuse(message: string): HookAnswer;
}

/** A hook input that is not what the agent sends: the message names the field. */
export class AgentInputError extends Error {
  override name = 'AgentInputError';
}
