/**
 * @module hooks/types
 * The shapes every part of the hook engine shares: what a handler receives ({@link HookContext}), what it
 * returns ({@link HookResult}) and what a point resolves to ({@link HookOutcome}).
 */

/** The five things a hook can ask for, weakest last. Precedence: `deny > ask_user > inject_context > modify > continue`. */
export type HookAction = 'continue' | 'deny' | 'modify' | 'inject_context' | 'ask_user';

/** Built-in hook points; any other string is a custom point. */
export type BuiltinHookPoint =
  | 'session:start'
  | 'session:end'
  | 'message:received'
  | 'llm:input'
  | 'llm:output'
  | 'tool:pre'
  | 'tool:post'
  | 'tool:error';

/** A hook point name: one of the built-in points or a custom one (keeps editor completion for the built-ins). */
export type HookPoint = BuiltinHookPoint | (string & {});

/** One chat message as seen on `llm:input`; the engine does not look inside. */
export interface HookChatMessage {
  /** Who spoke. */
  role: string;
  /** What was said. */
  content: unknown;
  /** Anything else the runtime keeps on a message. */
  [key: string]: unknown;
}

/** Facts about the tool being called, as declared in the executor's tool table. */
export interface HookToolInfo {
  /** The tool's name. */
  name: string;
  /** Set when the tool must always pass the approval gate. */
  requiresConfirmation?: boolean;
  /** Free-form description, for prompts. */
  description?: string;
}

/** What a handler receives. Fields are present when the point has them. */
export interface HookContext {
  /** The point that fired. */
  point: HookPoint;
  /** The tool being called (tool points). */
  toolName?: string;
  /** The tool's arguments as modified so far (tool points). */
  toolArgs?: Record<string, unknown>;
  /** The tool's result as modified so far (`tool:post`). */
  result?: unknown;
  /** The error the tool threw (`tool:error`). */
  error?: unknown;
  /** The tool's declaration, when the call came through a {@link ToolExecutor}-style runner. */
  tool?: HookToolInfo;
  /** The provider's tool call id; the approval gate derives its idempotency key from it. */
  toolCallId?: string;
  /** The session this belongs to. */
  sessionId?: string;
  /** The agent acting. */
  agentId?: string;
  /** The user on whose behalf the agent acts. */
  userId?: string;
  /** Message text (`message:received`, `llm:output`, optionally `llm:input`). */
  text?: string;
  /** The assembled conversation (`llm:input`). */
  messages?: HookChatMessage[];
  /** The payload of a custom point. */
  data?: unknown;
  /** Set on evaluation runs: the approval gate is bypassed, every other hook still runs. */
  evaluationRun?: boolean;
  /** Per-request facts for hooks to read (org id, flags, …). */
  metadata: Record<string, unknown>;
}

/** What a handler may return. Every field is optional; returning nothing means `continue`. */
export interface HookResult {
  /** What the hook wants; default `continue`. */
  action?: HookAction;
  /** Why: shown to the model when a call is denied, logged otherwise. */
  reason?: string;
  /** With `modify`: the new payload of the point (args on `tool:pre`, result on `tool:post`, text or messages on message and LLM points). */
  data?: unknown;
  /** With `inject_context`: text to add to the agent's context. */
  contextInjection?: string;
  /** Role of the injected message; default `system`. */
  contextInjectionRole?: 'system' | 'user' | 'assistant';
  /** When true the injection is for the next LLM call only, not stored in history. */
  ephemeral?: boolean;
  /** With `ask_user`: what to ask the human. */
  approval?: ApprovalAsk;
  /** Text to show the user (not the model). */
  userMessage?: string;
  /** Severity of {@link HookResult.userMessage}; default `info`. */
  userMessageLevel?: 'info' | 'warning' | 'error';
  /** Audit trail of what the hook did. */
  sideEffects?: string[];
  /** The confirmation request an approval gate's verdict came from: the executor reports a receipt against it. */
  requestId?: string;
  /** Skip the remaining handlers of this point; not an error (lionagi's StopHook). */
  stop?: boolean;
}

/** The question an `ask_user` result wants put to a human. */
export interface ApprovalAsk {
  /** The question; a default is built from the tool call when absent. */
  prompt?: string;
  /** Buttons; default `["Approve", "Deny"]`. */
  options?: string[];
  /** Seconds to wait for an answer. */
  timeoutS?: number;
  /** What happens when nobody answers; default `deny`. */
  default?: 'allow' | 'deny';
}

/** One piece of context a hook wants added to the conversation. */
export interface ContextInjection {
  /** The text. */
  content: string;
  /** The role to inject it as. */
  role: 'system' | 'user' | 'assistant';
  /** Next LLM call only. */
  ephemeral: boolean;
  /** The hook that asked for it. */
  source: string;
}

/** One message for the user. */
export interface UserMessage {
  /** The text. */
  message: string;
  /** How loud. */
  level: 'info' | 'warning' | 'error';
  /** The hook that sent it. */
  source: string;
}

/** What a point resolves to once every handler has had its say. */
export interface HookOutcome {
  /** The strongest action any handler asked for (see {@link HookAction}). */
  action: HookAction;
  /** The reason of the deciding handler (the denier, the asker). */
  reason?: string;
  /** The point's payload after every `modify`; absent when nothing modified it. */
  data?: unknown;
  /** Injections that fit the budget, in handler order. */
  contextInjections?: ContextInjection[];
  /** The first `ask_user` request, when the action is `ask_user`. */
  approval?: ApprovalAsk & { source: string };
  /** Messages for the user, in handler order. */
  userMessages?: UserMessage[];
  /** Audit trail of every handler that ran. */
  sideEffects: string[];
  /** The handler that decided the action (for `deny` and `ask_user`). */
  decidedBy?: string;
  /** The handler that stopped the chain, if one did. */
  stoppedBy?: string;
}

/** A hook as a plain (async) function; returning nothing means `continue`. */
export type HookFunction = (
  context: HookContext,
) => HookResult | void | undefined | Promise<HookResult | void | undefined>;

/** A hook as an object (FIM One's form): `execute` runs only when `shouldTrigger` says so. */
export interface HookObject {
  /** Default name when registered without one. */
  name?: string;
  /** Default priority when registered without one. */
  priority?: number;
  /** Default per-call timeout in ms when registered without one; 0 = none. */
  timeoutMs?: number;
  /** Whether this hook cares about the call; default true. */
  shouldTrigger?(context: HookContext): boolean | Promise<boolean>;
  /** Does the work. */
  execute(context: HookContext): HookResult | void | undefined | Promise<HookResult | void | undefined>;
}

/** Either form of hook. */
export type HookHandler = HookFunction | HookObject;

/** Where the engine writes what it isolates (thrown handlers, dropped injections). */
export interface HookLogger {
  /** Something was skipped or dropped. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** A handler failed. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/** The default logger: one JSON line per event on stderr, so library users get the news without a logging dependency. */
export const stderrHookLogger: HookLogger = {
  warn: (message, fields) => writeLine('warn', message, fields),
  error: (message, fields) => writeLine('error', message, fields),
};

function writeLine(level: string, msg: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, component: 'tollgate.hooks', msg, ...fields })}\n`);
}
