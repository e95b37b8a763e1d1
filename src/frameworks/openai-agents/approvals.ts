/**
 * @module frameworks/openai-agents
 * OpenAI Agents JS (`@openai/agents`): resolves a run's `interruptions` (tool approval items) through tollgate.
 */
import {
  RunState,
  run,
  type Agent,
  type NonStreamRunOptions,
  type RunResult,
  type RunToolApprovalItem,
} from '@openai/agents';
import type { GateClient } from '../../client/index.js';
import { argsObject, askForCall, confirmRun, gateClientFrom, type FrameworkGateOptions } from '../gate.js';

/** The request metadata key that holds the paused run (`RunState.toString()`). */
export const RUN_STATE_METADATA_KEY = 'openai_agents_run_state';

/** Options of {@link runWithApprovals}: where to ask, plus the usual non-streaming `run()` options. */
export type RunWithApprovalsOptions<TContext = undefined> = FrameworkGateOptions &
  Omit<NonStreamRunOptions<TContext>, 'stream' | 'signal'>;

/** The call id of an approval item, for the idempotency key. */
function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  const id = raw.callId ?? raw.id;
  if (!id) throw new TypeError(`openai-agents: approval item for ${item.name ?? 'a tool'} has no call id`);
  return id;
}

/**
 * Files one tollgate request per interruption (idempotency key `<keyPrefix ?? "openai-agents">:<callId>`, the
 * serialized `state` kept in the request's metadata under {@link RUN_STATE_METADATA_KEY}), waits for every verdict
 * and applies it to `state`: approve, or reject with the approver's reason as the message the model reads. The SDK
 * cannot approve a call with changed arguments (it rejects a call id reused with other arguments), so an approval
 * with edited args rejects the call with a message naming the approved args, which the model can call again with. Then `run(agent, state)` continues. For callers who persist `RunState` themselves; see {@link restoreRunState}.
 *
 * @example
 * ```ts
 * import { run } from '@openai/agents';
 * import { decideInterruptions } from 'tollgate/openai-agents';
 *
 * let result = await run(agent, 'deploy to prod');
 * while (result.interruptions.length > 0) {
 *   await decideInterruptions(result.state, result.interruptions, { url: 'http://127.0.0.1:8787', token: process.env.TOLLGATE_TOKEN });
 *   result = await run(agent, result.state);
 * }
 * ```
 */
export async function decideInterruptions(
  state: RunState<any, any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- any agent's state
  interruptions: readonly RunToolApprovalItem[],
  options: FrameworkGateOptions = {},
): Promise<void> {
  const client = gateClientFrom(options);
  const serialized = state.toString();
  await Promise.all(
    interruptions.map(async (item) => {
      const verdict = await askForCall(client, options, 'openai-agents', {
        toolName: item.name ?? 'tool',
        args: argsObject(item.arguments),
        callId: callIdOf(item),
        metadata: { framework: 'openai-agents', [RUN_STATE_METADATA_KEY]: serialized },
      });
      if (!verdict.allowed) {
        state.reject(item, { message: verdict.reason ? `Rejected by the approver: ${verdict.reason}` : undefined });
        return;
      }
      const asked = argsObject(item.arguments);
      if (verdict.approvedArgs && JSON.stringify(verdict.approvedArgs) !== JSON.stringify(asked)) {
        // The SDK refuses a call whose arguments changed after approval, so an edit cannot be applied in place: the
        // call is rejected and the model is told which arguments were approved (calling again asks again).
        state.reject(item, {
          message: `The approver approved this call only with these arguments: ${JSON.stringify(verdict.approvedArgs)}. Call the tool again with them if still needed.`,
        });
        return;
      }
      // The call the SDK makes on `approve` is the item as the model asked it: its tool name and its own arguments.
      const checked = await confirmRun(options, verdict, { toolName: item.name ?? 'tool', args: asked });
      if (!checked.allowed) {
        state.reject(item, { message: `Not run: ${checked.reason}` });
        return;
      }
      state.approve(item);
    }),
  );
}

/**
 * Rebuilds the paused run a tollgate request was filed for (by request id), from the state kept in its metadata —
 * how a restarted process picks a run up again. Then pass it to {@link decideInterruptions} with
 * `state.getInterruptions()` (which re-attaches to the same requests) and `run(agent, state)`.
 *
 * @example
 * ```ts
 * const state = await restoreRunState(agent, requestId, { client });
 * await decideInterruptions(state, state.getInterruptions(), { client });
 * const result = await run(agent, state);
 * ```
 */
export async function restoreRunState<TAgent extends Agent<any, any>>( // eslint-disable-line @typescript-eslint/no-explicit-any -- any agent
  agent: TAgent,
  requestId: string,
  options: FrameworkGateOptions & { client?: GateClient } = {},
): Promise<RunState<unknown, TAgent>> {
  const request = await gateClientFrom(options).get(requestId, { signal: options.signal });
  const serialized = request.metadata[RUN_STATE_METADATA_KEY];
  if (typeof serialized !== 'string') throw new TypeError(`openai-agents: request ${requestId} holds no run state`);
  return RunState.fromString<unknown, TAgent>(agent, serialized);
}

/**
 * Runs `agent` to completion, resolving each run's `interruptions` through tollgate (see
 * {@link decideInterruptions}), and resolves with the final `RunResult`.
 *
 * @example
 * ```ts
 * import { Agent, tool } from '@openai/agents';
 * import { runWithApprovals } from 'tollgate/openai-agents';
 *
 * const deploy = tool({ name: 'deploy', description: 'Deploy', parameters: z.object({ env: z.string() }), needsApproval: true,
 *   execute: async ({ env }) => `deployed ${env}` });
 * const agent = new Agent({ name: 'release-bot', tools: [deploy] });
 * const result = await runWithApprovals(agent, 'deploy to prod', { url: 'http://127.0.0.1:8787', token: process.env.TOLLGATE_TOKEN, timeoutS: 600 });
 * console.log(result.finalOutput);
 * ```
 */
export async function runWithApprovals<TAgent extends Agent<any, any>, TContext = undefined>( // eslint-disable-line @typescript-eslint/no-explicit-any -- any agent
  agent: TAgent,
  input: Parameters<typeof run<TAgent, TContext>>[1],
  options: RunWithApprovalsOptions<TContext> = {},
): Promise<RunResult<TContext, TAgent>> {
  const { client, url, token, timeoutS, approvers, channels, keyPrefix, signal, requireVerdict, ...runOptions } =
    options;
  const gate: FrameworkGateOptions = {
    client: client ?? gateClientFrom({ url, token }),
    timeoutS,
    approvers,
    channels,
    keyPrefix,
    signal,
    requireVerdict,
  };
  let result = await run<TAgent, TContext>(agent, input, { ...runOptions, signal } as NonStreamRunOptions<
    TContext,
    TAgent
  >);
  while (result.interruptions.length > 0) {
    await decideInterruptions(result.state, result.interruptions, gate);
    result = await run<TAgent, TContext>(agent, result.state, { ...runOptions, signal } as NonStreamRunOptions<
      TContext,
      TAgent
    >);
  }
  return result;
}
