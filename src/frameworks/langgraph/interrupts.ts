/**
 * @module frameworks/langgraph
 * LangGraph.js / langchain v1: answers `humanInTheLoopMiddleware` interrupts (`{actionRequests, reviewConfigs}`) and
 * plain `interrupt(value)` payloads through tollgate, and builds the `Command({ resume })` that continues the thread.
 */
import { Command } from '@langchain/langgraph';
import { argsObject, askForCall, confirmRun, gateClientFrom, type FrameworkGateOptions } from '../gate.js';

/** One interrupt as a graph returns it in `__interrupt__` (or `state.tasks[].interrupts`). */
export interface GraphInterrupt {
  id?: string;
  value?: unknown;
}

/** A decision of `humanInTheLoopMiddleware`. */
export type HitlDecision =
  | { type: 'approve' }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: 'reject'; message?: string };

/** What a plain `interrupt(value)` is resumed with. */
export interface PlainInterruptAnswer {
  approved: boolean;
  reason?: string;
  /** The approver's edited args, when they edited them. */
  args?: Record<string, unknown>;
}

/** Options: where to ask, plus the `thread_id` that keeps keys of different threads apart. */
export interface LanggraphGateOptions extends FrameworkGateOptions {
  /** The thread being resumed; part of each idempotency key. */
  threadId?: string;
}

interface HitlRequest {
  actionRequests: { name: string; args: Record<string, unknown>; description?: string }[];
  reviewConfigs?: { actionName: string; allowedDecisions: string[] }[];
}

function isHitlRequest(value: unknown): value is HitlRequest {
  return !!value && typeof value === 'object' && Array.isArray((value as HitlRequest).actionRequests);
}

/**
 * Answers one interrupt value: a `humanInTheLoopMiddleware` request becomes one tollgate request per action and
 * resolves to `{ decisions }` (approve; edit when the approver changed the args and `edit` is allowed; reject with
 * the approver's reason as the message the model reads), anything else becomes one request (`tool_name` from the
 * value's `tool_name`/`name`, else `"interrupt"`) and resolves to a {@link PlainInterruptAnswer}.
 * `key` names the interrupt in the idempotency key (`<keyPrefix ?? "langgraph">:<key>:<index>`).
 */
export async function answerInterrupt(
  value: unknown,
  key: string,
  options: LanggraphGateOptions = {},
): Promise<{ decisions: HitlDecision[] } | PlainInterruptAnswer> {
  const client = gateClientFrom(options);
  const thread = options.threadId ? `${options.threadId}:` : '';
  if (isHitlRequest(value)) {
    const decisions = await Promise.all(
      value.actionRequests.map(async (action, index): Promise<HitlDecision> => {
        const allowed = value.reviewConfigs?.find((c) => c.actionName === action.name)?.allowedDecisions ?? [
          'approve',
          'edit',
          'reject',
        ];
        const asked = await askForCall(client, options, 'langgraph', {
          toolName: action.name,
          args: action.args,
          callId: `${thread}${key}:${index}`,
          metadata: { framework: 'langgraph', description: action.description, allowed_decisions: allowed },
        });
        if (!asked.allowed) return { type: 'reject', message: asked.reason };
        const edited =
          asked.approvedArgs && JSON.stringify(asked.approvedArgs) !== JSON.stringify(action.args)
            ? asked.approvedArgs
            : undefined;
        // An approval of args the graph may not take is not an approval of the original ones.
        if (edited && !allowed.includes('edit'))
          return {
            type: 'reject',
            message: 'the approver changed the arguments, and editing is not allowed for this tool',
          };
        // The call the middleware makes: the action's tool, with the edited args on `edit`, else the action's own.
        const verdict = await confirmRun(options, asked, { toolName: action.name, args: edited ?? action.args });
        if (!verdict.allowed) return { type: 'reject', message: verdict.reason };
        return edited ? { type: 'edit', editedAction: { name: action.name, args: edited } } : { type: 'approve' };
      }),
    );
    return { decisions };
  }
  const args = argsObject(value);
  const name =
    typeof args.tool_name === 'string' ? args.tool_name : typeof args.name === 'string' ? args.name : 'interrupt';
  const asked = await askForCall(client, options, 'langgraph', {
    toolName: name,
    args,
    callId: `${thread}${key}:0`,
    metadata: { framework: 'langgraph' },
  });
  // A plain interrupt's caller runs what the answer says: `args` (the approver's edit) when present, else the
  // interrupt's own value, as filed.
  const verdict = await confirmRun(options, asked, { toolName: name, args: asked.approvedArgs ?? args });
  return {
    approved: verdict.allowed,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
    ...(verdict.approvedArgs ? { args: verdict.approvedArgs } : {}),
  };
}

/**
 * Answers every interrupt of a paused graph through tollgate and returns the `Command` to invoke the graph with
 * (same `thread_id`). One interrupt resumes with its answer; several resume with a map from interrupt id to answer.
 * A restarted process calling this again for the same interrupts re-attaches to the same requests.
 *
 * @example
 * ```ts
 * import { createAgent, humanInTheLoopMiddleware } from 'langchain';
 * import { MemorySaver } from '@langchain/langgraph';
 * import { resumeCommand } from 'tollgate/langgraph';
 *
 * const agent = createAgent({ model, tools: [deploy], checkpointer: new MemorySaver(),
 *   middleware: [humanInTheLoopMiddleware({ interruptOn: { deploy: { allowedDecisions: ['approve', 'edit', 'reject'] } } })] });
 * const config = { configurable: { thread_id: 'release-42' } };
 * let result = await agent.invoke({ messages: [{ role: 'user', content: 'deploy prod' }] }, config);
 * while (result.__interrupt__?.length) {
 *   const command = await resumeCommand(result.__interrupt__, { url: 'http://127.0.0.1:8787', token: process.env.TOLLGATE_TOKEN, threadId: 'release-42' });
 *   result = await agent.invoke(command, config);
 * }
 * ```
 */
export async function resumeCommand(
  interrupts: readonly GraphInterrupt[],
  options: LanggraphGateOptions = {},
): Promise<Command<unknown, never, never>> {
  if (interrupts.length === 0) throw new TypeError('resumeCommand: no interrupts to answer');
  const answers = await Promise.all(
    interrupts.map((i, index) => answerInterrupt(i.value, i.id ?? `interrupt-${index}`, options)),
  );
  if (interrupts.length === 1) return new Command<unknown, never, never>({ resume: answers[0] });
  const byId: Record<string, unknown> = {};
  interrupts.forEach((i, index) => {
    if (!i.id) throw new TypeError('resumeCommand: several interrupts need ids to be resumed together');
    byId[i.id] = answers[index];
  });
  return new Command<unknown, never, never>({ resume: byId });
}
