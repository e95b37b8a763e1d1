/**
 * @module hooks/approval-gate
 * `approvalGate()`: tollgate's human-in-the-loop approval as one hook. It files a ConfirmationRequest
 * through an {@link ApprovalBackend}, waits for the verdict, and answers `continue`, `deny` (with the
 * approver's reason) or `modify` (with the approver's edited arguments).
 */
import { randomUUID } from 'node:crypto';
import type { GateClient } from '../client/gate-client.js';
import { remoteBackend, type RemoteBackendOptions } from '../client/remote-backend.js';
import type { Clock } from '../utils/clock.js';
import type { Gateway } from '../gateway/gateway.js';
import type {
  ApprovalBackend,
  ApprovalChannelTarget,
  ApprovalRequestInput,
  ApprovalVerdict,
} from '../client/approval-backend.js';
import { gatewayBackend } from './gateway-backend.js';
import type { ToolGate } from './executor.js';
import { argsSha256 } from '../requests/args-hash.js';
import { matchesAny } from '../utils/patterns.js';
import type { ApprovalAsk, HookContext, HookObject, HookResult } from './types.js';

export type {
  ApprovalBackend,
  ApprovalChannelTarget,
  ApprovalRequestInput,
  ApprovalVerdict,
  ExecutionReceiptInput,
} from '../client/approval-backend.js';

/**
 * Options of {@link approvalGate}. Say where requests go with exactly one of: `backend`, `gateway` (in process),
 * `client` (a {@link GateClient}), or `url` + `token` (a tollgate server).
 */
export interface ApprovalGateOptions {
  /** Any backend. */
  backend?: ApprovalBackend;
  /** A gateway instance in this process. */
  gateway?: Gateway;
  /** A configured HTTP client. */
  client?: GateClient;
  /** A tollgate server's base URL (with `token`); `TOLLGATE_URL` when only `token` is given. */
  url?: string;
  /** The server's API token; `TOLLGATE_TOKEN` when only `url` is given. */
  token?: string;
  /**
   * With `client` or `url` + `token`: trust an approval only when its signed `verdict_token` verifies, with these
   * keys (the real gateway's `jwksUrl`, or its `keys`), for the call this gate makes — the tool it filed, with the
   * approver's edited arguments when it answers `modify`, else the call's own, under the request it filed (see
   * `remoteBackend`). Anything else blocks the call.
   */
  requireVerdict?: RemoteBackendOptions['requireVerdict'];
  /** Tool name wildcards that always need approval, besides tools flagged `requiresConfirmation`. */
  tools?: string[];
  /** The question on the card; a function sees the call. Default names the agent and the tool. */
  prompt?: string | ((context: HookContext) => string);
  /** Buttons; default the gateway's (`["Approve", "Deny"]`). */
  options?: string[];
  /** Seconds before the request expires; default the gateway's (300). */
  timeoutS?: number;
  /** What an expiry means; default `deny`. */
  onTimeout?: 'deny' | 'approve';
  /** Where to deliver the card; default the gateway's configuration. */
  channels?: ApprovalChannelTarget[];
  /** Who may decide; default anyone who sees the card. */
  approvers?: string[];
  /** Extra metadata stored on the request. */
  metadata?: Record<string, unknown>;
  /**
   * Builds the idempotency key; default {@link defaultIdempotencyKey}: `hook:<agentId>:<sessionId>:<toolCallId>`, or
   * with no session a random id of this gate in its place (none without a tool call id).
   */
  idempotencyKey?: (context: HookContext) => string | undefined;
  /** Retries of a failed ask (same idempotency key): attempts in all (default 5) and first delay (default 1 s, doubling, max 30 s). */
  retry?: { attempts?: number; delayMs?: number };
  /** Time source for retry delays. */
  clock?: Clock;
  /** Hook name (default `approval_gate`). */
  name?: string;
  /** Hook priority when registered (default 1000: after cheaper guards). */
  priority?: number;
}

/** The gate: a `tool:pre` hook object and a {@link ToolGate} for {@link ToolExecutor}. Use it as one or the other, not both. */
export interface ApprovalGate extends HookObject, ToolGate {
  name: string;
  /** Whether the call needs a human: the tool's `requiresConfirmation` flag or a name pattern. */
  requiresApproval(context: HookContext): boolean;
  /** Files the request and waits; `ask` (from an `ask_user` hook) overrides prompt, options and timeout. */
  decide(context: HookContext, ask?: ApprovalAsk, signal?: AbortSignal): Promise<HookResult>;
}

/**
 * Builds the approval gate.
 * @example
 * const gate = approvalGate({ backend, tools: ['deploy_*'], timeoutS: 600 });
 * const executor = new ToolExecutor({ registry, tools, gate });
 */
export function approvalGate(options: ApprovalGateOptions): ApprovalGate {
  const backend = pickBackend(options);
  const clock = options.clock ?? keepAliveClock;
  const patterns = options.tools ?? [];
  const name = options.name ?? 'approval_gate';
  // Stands in for a missing session in the default key: call ids like `call_1` repeat across agents and runs, so a
  // key of the call id alone would find another run's request (keys are per token; agents may share one).
  const instance = randomUUID();

  const requiresApproval = (context: HookContext): boolean =>
    Boolean(context.tool?.requiresConfirmation) ||
    context.metadata?.requiresConfirmation === true ||
    (context.toolName !== undefined && matchesAny(context.toolName, patterns));

  const decide = async (context: HookContext, ask?: ApprovalAsk, signal?: AbortSignal): Promise<HookResult> => {
    const input = buildInput(options, context, instance, ask);
    const verdict = await askWithRetry(backend, options.retry, input, clock, signal);
    return verdictToResult(name, verdict, input);
  };

  return {
    name,
    priority: options.priority ?? 1000,
    // The backend owns the wait's length (timeout_s); a hook timeout would cut approvals short.
    timeoutMs: 0,
    requiresApproval,
    shouldTrigger: (context) => context.point === 'tool:pre' && !context.evaluationRun && requiresApproval(context),
    execute: (context) => decide(context),
    decide,
    async receipt(requestId, context, outcome) {
      if (!backend.receipt) return;
      await backend.receipt(requestId, {
        outcome: outcome.succeeded ? 'succeeded' : 'failed',
        detail: outcome.detail?.slice(0, 4000),
        args_sha256: argsSha256(context.toolName ?? 'unknown', context.toolArgs ?? {}),
      });
    },
  };
}

function buildInput(
  options: ApprovalGateOptions,
  context: HookContext,
  instance: string,
  ask?: ApprovalAsk,
): ApprovalRequestInput {
  const toolName = context.toolName ?? 'unknown';
  const prompt =
    ask?.prompt ??
    (typeof options.prompt === 'function' ? options.prompt(context) : options.prompt) ??
    `${context.agentId ?? 'An agent'} wants to run "${toolName}".`;
  const onTimeout = ask?.default ? (ask.default === 'allow' ? 'approve' : 'deny') : options.onTimeout;
  const input: ApprovalRequestInput = {
    tool_name: toolName,
    tool_args: context.toolArgs ?? {},
    prompt,
    options: ask?.options ?? options.options,
    agent_id: context.agentId,
    user_id: context.userId,
    session_id: context.sessionId,
    tool_call_id: context.toolCallId,
    idempotency_key: options.idempotencyKey
      ? options.idempotencyKey(context)
      : defaultIdempotencyKey(context, instance),
    timeout_s: ask?.timeoutS ?? options.timeoutS,
    on_timeout: onTimeout,
    channels: options.channels,
    approvers: options.approvers,
    metadata: options.metadata,
  };
  // Absent fields stay absent so the gateway's defaults apply.
  for (const key of Object.keys(input) as (keyof ApprovalRequestInput)[])
    if (input[key] === undefined) delete input[key];
  return input;
}

/**
 * The default idempotency key: the tool call id, scoped to the agent and its session, or with no session to `instance`
 * (the gate's random id), so a retry after a crash of a session's host re-attaches while unrelated agents under one
 * token never meet on a predictable `call_1`. The gateway scopes every key to the token that files it besides.
 */
export function defaultIdempotencyKey(context: HookContext, instance: string): string | undefined {
  if (!context.toolCallId) return undefined;
  return `hook:${context.agentId ?? '-'}:${context.sessionId ?? instance}:${context.toolCallId}`;
}

/**
 * Wall-clock timers that keep the process alive. The shared systemClock unrefs its timers, which is right for
 * expiry timers but wrong here: an agent whose only pending work is a retry of its approval wait would exit.
 */
const keepAliveClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle) };
  },
};

function pickBackend(options: ApprovalGateOptions): ApprovalBackend {
  if (!options || typeof options !== 'object') throw new TypeError('approvalGate needs options');
  const given = [options.backend, options.gateway, options.client, options.url ?? options.token].filter(
    (v) => v !== undefined,
  );
  if (given.length !== 1)
    throw new TypeError('approvalGate needs exactly one of: backend, gateway, client, or url + token');
  // A backend of your own checks what it trusts itself, and a gateway in this process is the signer: a verdict
  // check would be silently meaningless there, so it is refused.
  if (options.requireVerdict && (options.backend || options.gateway))
    throw new TypeError(
      'approvalGate: requireVerdict applies to client or url + token (pass it to remoteBackend() for a backend)',
    );
  if (options.backend) {
    if (typeof options.backend.requestAndWait !== 'function')
      throw new TypeError('approvalGate: backend needs requestAndWait()');
    return options.backend;
  }
  if (options.gateway) return gatewayBackend(options.gateway);
  const verdicts = { requireVerdict: options.requireVerdict };
  if (options.client) return remoteBackend(options.client, verdicts);
  return remoteBackend({ url: options.url, token: options.token }, verdicts);
}

async function askWithRetry(
  backend: ApprovalBackend,
  retry: ApprovalGateOptions['retry'],
  input: ApprovalRequestInput,
  clock: Clock,
  signal?: AbortSignal,
): Promise<ApprovalVerdict> {
  // Without an idempotency key a retry could file a second request, so only keyed asks are retried.
  const attempts = input.idempotency_key ? Math.max(1, retry?.attempts ?? 5) : 1;
  let delay = retry?.delayMs ?? 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await backend.requestAndWait(input, signal);
    } catch (err) {
      const retryable = (err as { retryable?: unknown } | null)?.retryable !== false;
      if (attempt >= attempts || !retryable || signal?.aborted) throw err;
      await sleep(clock, delay, signal);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}

function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function verdictToResult(name: string, verdict: ApprovalVerdict, input: ApprovalRequestInput): HookResult {
  const who = verdict.respondedBy ?? null;
  const ref = verdict.requestId ? ` (request ${verdict.requestId})` : '';
  const sideEffects = [`${name}: ${verdict.status}${who ? ` by ${who}` : ''}${ref}`];
  if (verdict.allowed) {
    const requestId = verdict.requestId;
    if (verdict.approvedArgs && typeof verdict.approvedArgs === 'object') {
      return {
        action: 'modify',
        data: verdict.approvedArgs,
        reason: verdict.reason ?? undefined,
        sideEffects,
        requestId,
      };
    }
    return { action: 'continue', sideEffects, requestId };
  }
  return { action: 'deny', reason: denialReason(verdict, input), sideEffects };
}

function denialReason(verdict: ApprovalVerdict, input: ApprovalRequestInput): string {
  const why = verdict.reason ? `: ${verdict.reason}` : '';
  switch (verdict.status) {
    case 'denied':
      return `a human approver${verdict.respondedBy ? ` (${verdict.respondedBy})` : ''} denied it${why}`;
    case 'expired':
      return `nobody approved it within ${input.timeout_s ?? 'the allowed'}${input.timeout_s ? ' s' : ' time'}, so it was denied by default`;
    case 'cancelled':
      return `the approval request was cancelled${why}`;
    default:
      return `it was not approved (${verdict.status})${why}`;
  }
}
