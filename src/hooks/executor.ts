/**
 * @module hooks/executor
 * {@link ToolExecutor}: the one road a tool call takes — `tool:pre`, then the approval gate when a hook (or
 * the tool's own flag) asks for a human, then the tool with the final arguments, then `tool:post`
 * (`tool:error` when the tool throws, `tool:blocked` when it never ran).
 */
import type { HookRegistry } from './registry.js';
import type { ApprovalAsk, ContextInjection, HookContext, HookResult, HookToolInfo, UserMessage } from './types.js';

/** A tool's implementation. */
export type ToolFunction = (args: Record<string, unknown>, context: ToolCallContext) => unknown;

/** A tool as the executor knows it. */
export interface ToolDefinition {
  /** Runs the tool. */
  execute: ToolFunction;
  /** Always ask a human before this tool runs (when a gate is configured; blocked otherwise). */
  requiresConfirmation?: boolean;
  /** Shown in approval prompts. */
  description?: string;
}

/** Tools by name: definitions or bare functions. */
export type ToolTable = Record<string, ToolDefinition | ToolFunction> | Map<string, ToolDefinition | ToolFunction>;

/** What a tool receives besides its arguments. */
export interface ToolCallContext {
  toolName: string;
  toolCallId?: string;
  sessionId?: string;
  agentId?: string;
  userId?: string;
  metadata: Record<string, unknown>;
  signal?: AbortSignal;
}

/** Decides `ask_user` outcomes; {@link approvalGate} is the usual one. */
export interface ToolGate {
  /** Whether this call needs a human even when no hook asked (flags, name patterns). */
  requiresApproval?(context: HookContext): boolean;
  /** Asks and waits. Returns `continue` (approved), `deny` (with the reason) or `modify` (approved with edited args in `data`). */
  decide(context: HookContext, ask?: ApprovalAsk, signal?: AbortSignal): Promise<HookResult>;
  /** Reports how an approved call ran (`context.toolArgs` = the arguments that ran) against the request it was approved by. */
  receipt?(requestId: string, context: HookContext, outcome: { succeeded: boolean; detail?: string }): Promise<void>;
}

/** Options of `new ToolExecutor()`. */
export interface ToolExecutorOptions {
  /** The hooks to run. */
  registry: HookRegistry;
  /** The tools it may call. */
  tools: ToolTable;
  /** Resolves `ask_user`; without one, calls that need a human are blocked. */
  gate?: ToolGate;
}

/** Per-call facts for {@link ToolExecutor.execute}. */
export interface ExecuteOptions {
  toolCallId?: string;
  sessionId?: string;
  agentId?: string;
  userId?: string;
  metadata?: Record<string, unknown>;
  /** Bypass the approval gate for this call (evaluation runs); every other hook still runs. */
  evaluationRun?: boolean;
  /** Aborts a wait for approval and is handed to the tool. */
  signal?: AbortSignal;
}

/** Extras a successful or blocked call carries back for the agent loop. */
interface ExecutionExtras {
  sideEffects: string[];
  contextInjections?: ContextInjection[];
  userMessages?: UserMessage[];
}

/** How a call ended. `reason` of a blocked call is written for the model to read. */
export type ToolExecution =
  | ({ status: 'ok'; result: unknown } & ExecutionExtras)
  | ({ status: 'blocked'; reason: string } & ExecutionExtras)
  | { status: 'error'; error: Error; sideEffects: string[] };

/** Custom notification point fired when a call is denied and the tool never ran. */
export const TOOL_BLOCKED_POINT = 'tool:blocked';

/**
 * Runs tool calls through the hooks.
 * @example
 * const executor = new ToolExecutor({ registry, tools: { add: ({ a, b }) => Number(a) + Number(b) } });
 * const out = await executor.execute('add', { a: 1, b: 2 }); // { status: 'ok', result: 3, sideEffects: [] }
 */
export class ToolExecutor {
  private readonly registry: HookRegistry;
  private readonly tools: Map<string, ToolDefinition>;
  private readonly gate?: ToolGate;

  constructor(options: ToolExecutorOptions) {
    this.registry = options.registry;
    this.gate = options.gate;
    const entries = options.tools instanceof Map ? [...options.tools] : Object.entries(options.tools);
    this.tools = new Map(entries.map(([name, t]) => [name, typeof t === 'function' ? { execute: t } : t]));
    if (this.registry.pointSpec(TOOL_BLOCKED_POINT).kind !== 'notification') {
      this.registry.declarePoint(TOOL_BLOCKED_POINT, { kind: 'notification' });
    }
  }

  /** Runs one tool call end to end. Never throws for a tool's or a hook's failure; see {@link ToolExecution}. */
  async execute(
    toolName: string,
    args: Record<string, unknown> = {},
    options: ExecuteOptions = {},
  ): Promise<ToolExecution> {
    const tool = this.tools.get(toolName);
    if (!tool) return { status: 'error', error: new Error(`unknown tool "${toolName}"`), sideEffects: [] };
    const info: HookToolInfo = {
      name: toolName,
      requiresConfirmation: tool.requiresConfirmation,
      description: tool.description,
    };
    const base = {
      toolName,
      tool: info,
      toolCallId: options.toolCallId,
      sessionId: options.sessionId,
      agentId: options.agentId,
      userId: options.userId,
      metadata: { ...options.metadata, requiresConfirmation: tool.requiresConfirmation ?? false },
      evaluationRun: options.evaluationRun ?? (this.registry.evaluationRun || undefined),
    };
    const extras: ExecutionExtras = { sideEffects: [] };

    const pre = await this.registry.run('tool:pre', { ...base, toolArgs: args });
    merge(extras, pre);
    let finalArgs = (pre.data as Record<string, unknown> | undefined) ?? args;
    if (pre.action === 'deny') return this.block(base, finalArgs, pre.reason ?? 'denied by a hook', extras);

    const preContext: HookContext = { ...base, point: 'tool:pre', toolArgs: finalArgs };
    let approvedBy: string | undefined;
    const needsHuman =
      pre.action === 'ask_user' ||
      tool.requiresConfirmation === true ||
      (this.gate?.requiresApproval?.(preContext) ?? false);
    if (needsHuman && !base.evaluationRun) {
      if (!this.gate)
        return this.block(
          base,
          finalArgs,
          'this call needs a human approval and no approval gate is configured',
          extras,
        );
      let verdict: HookResult;
      try {
        verdict = await this.gate.decide(preContext, pre.approval, options.signal);
      } catch (err) {
        return this.block(base, finalArgs, `approval could not be obtained (${errorOf(err).message})`, extras);
      }
      if (verdict.sideEffects) extras.sideEffects.push(...verdict.sideEffects);
      if (verdict.action === 'deny') return this.block(base, finalArgs, verdict.reason ?? 'a human denied it', extras);
      if (verdict.action === 'modify' && verdict.data && typeof verdict.data === 'object')
        finalArgs = verdict.data as Record<string, unknown>;
      approvedBy = verdict.requestId;
    }

    let result: unknown;
    try {
      result = await tool.execute(finalArgs, { ...base, signal: options.signal });
    } catch (err) {
      const error = errorOf(err);
      await this.sendReceipt(
        approvedBy,
        { ...preContext, toolArgs: finalArgs },
        { succeeded: false, detail: error.message },
        extras,
      );
      const failed = await this.registry.run('tool:error', { ...base, toolArgs: finalArgs, error });
      return { status: 'error', error, sideEffects: [...extras.sideEffects, ...failed.sideEffects] };
    }

    await this.sendReceipt(approvedBy, { ...preContext, toolArgs: finalArgs }, { succeeded: true }, extras);
    const post = await this.registry.run('tool:post', { ...base, toolArgs: finalArgs, result });
    merge(extras, post);
    if (post.action === 'deny') {
      return {
        status: 'blocked',
        reason: `The tool "${toolName}" ran, but its result was withheld: ${post.reason ?? 'denied by a hook'}`,
        ...extras,
      };
    }
    return { status: 'ok', result: post.data !== undefined ? post.data : result, ...extras };
  }

  /** Reports the outcome to the request that approved the call; a failed report is a side effect, never a failed call. */
  private async sendReceipt(
    requestId: string | undefined,
    context: HookContext,
    outcome: { succeeded: boolean; detail?: string },
    extras: ExecutionExtras,
  ): Promise<void> {
    if (!requestId || !this.gate?.receipt) return;
    try {
      await this.gate.receipt(requestId, context, outcome);
    } catch (err) {
      extras.sideEffects.push(`receipt for request ${requestId} failed: ${errorOf(err).message}`);
    }
  }

  private async block(
    base: Omit<HookContext, 'point'>,
    args: Record<string, unknown>,
    why: string,
    extras: ExecutionExtras,
  ): Promise<ToolExecution> {
    const reason = `The tool "${base.toolName}" was not run: ${why.replace(/[.\s]+$/, '')}. Do not retry the same call unchanged.`;
    const blocked = await this.registry.run(TOOL_BLOCKED_POINT, { ...base, toolArgs: args, data: { reason } });
    extras.sideEffects.push(...blocked.sideEffects);
    return { status: 'blocked', reason, ...extras };
  }
}

function merge(
  extras: ExecutionExtras,
  outcome: { sideEffects: string[]; contextInjections?: ContextInjection[]; userMessages?: UserMessage[] },
): void {
  extras.sideEffects.push(...outcome.sideEffects);
  if (outcome.contextInjections)
    extras.contextInjections = [...(extras.contextInjections ?? []), ...outcome.contextInjections];
  if (outcome.userMessages) extras.userMessages = [...(extras.userMessages ?? []), ...outcome.userMessages];
}

function errorOf(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
