/**
 * @module requests/serialize
 * The one mapping between the HTTP API's snake_case request (contract: snake_case fields, ISO-8601 UTC timestamps)
 * and the gateway's camelCase objects, both ways.
 */
import type { NewRequestInput } from './new-request.js';
import type { AgentContext, ChannelTarget, ConfirmationEvent, ConfirmationRequest, TimeoutPolicy } from './types.js';
import type { CallSummary, ToolAnnotations } from '../summaries/types.js';

/** The fields of `POST /v1/requests` as any caller holds them (a validated body, a hook's ask). */
export interface ApiRequestInput {
  tool_name: string;
  tool_args?: Record<string, unknown>;
  prompt?: string;
  options?: string[];
  agent_id?: string;
  user_id?: string;
  session_id?: string;
  tool_call_id?: string;
  agent_kind?: string;
  context?: AgentContext;
  tool_annotations?: ToolAnnotations;
  metadata?: Record<string, unknown>;
  channels?: ChannelTarget[];
  approvers?: string[];
  required_approvals?: number;
  timeout_s?: number;
  on_timeout?: TimeoutPolicy;
  idempotency_key?: string;
  callback_url?: string;
}

/** The gateway's input for an API-shaped request (validate it first: this only renames). */
export function fromApiInput(body: ApiRequestInput): NewRequestInput {
  return {
    toolName: body.tool_name,
    toolArgs: body.tool_args,
    prompt: body.prompt,
    options: body.options,
    agentId: body.agent_id,
    userId: body.user_id,
    sessionId: body.session_id,
    toolCallId: body.tool_call_id,
    agentKind: body.agent_kind,
    context: body.context,
    toolAnnotations: body.tool_annotations,
    metadata: body.metadata,
    channels: body.channels,
    approvers: body.approvers,
    requiredApprovals: body.required_approvals,
    timeoutS: body.timeout_s,
    onTimeout: body.on_timeout,
    idempotencyKey: body.idempotency_key,
    callbackUrl: body.callback_url,
  };
}

/** The API shape of a request (`GET /v1/requests/:id`). */
export interface ApiRequest {
  id: string;
  status: ConfirmationRequest['status'];
  tool_name: string;
  tool_args: Record<string, unknown>;
  approved_args: Record<string, unknown> | null;
  prompt: string | null;
  options: string[];
  agent_id: string | null;
  user_id: string | null;
  session_id: string | null;
  tool_call_id: string | null;
  /** The coding agent that asked (`codex`, `gemini`, …), or null. */
  agent_kind: string | null;
  /** Where that agent was working: `{session_id, cwd, repo, branch, model}`, or null. */
  context: AgentContext | null;
  metadata: Record<string, unknown>;
  /** What the call will do and how risky it looks; null for a request filed before summaries (absent from older gateways). */
  summary?: CallSummary | null;
  channels: ConfirmationRequest['channels'];
  approvers: string[];
  required_approvals: number;
  on_timeout: ConfirmationRequest['onTimeout'];
  idempotency_key: string | null;
  args_sha256: string;
  /** Name of the API token that filed the request. */
  filed_by: string | null;
  /** The person the filing token speaks for, when it names one. */
  filed_by_person: string | null;
  created_at: string;
  expires_at: string;
  updated_at: string;
  responded_at: string | null;
  responded_by: string | null;
  responded_via: string | null;
  /** The person behind `responded_by` (the people directory's id; the account itself when the directory does not know it). */
  responded_by_person: string | null;
  /** The absentee a delegate decided for (`responded_by_person` is the delegate), or null. */
  on_behalf_of: string | null;
  decision_option: string | null;
  reason: string | null;
  allowed: boolean | null;
  /**
   * The signed verdict of a final request (a compact JWS a tool checks with `tollgate/verify`; see docs/audit.md):
   * null while pending, and where no signer made one (a gateway built without `createServer`, an export).
   */
  verdict_token: string | null;
}

/** The API shape of an audit event. */
export interface ApiEvent {
  id: number;
  request_id: string;
  type: string;
  actor: string | null;
  channel: string | null;
  detail: Record<string, unknown>;
  at: string;
}

/**
 * Verdict tokens of row objects: minted by the store that settled the row, in that transaction, or read as stored
 * (`stores/verdict-tokens`). Kept beside the row, not in it, so the domain object stays the row and the token is
 * dropped with it.
 */
const verdictTokens = new WeakMap<ConfirmationRequest, string>();

/** Attaches the verdict token of a final row to the row object, for {@link toApiRequest} to show. */
export function attachVerdictToken(r: ConfirmationRequest, token: string): void {
  verdictTokens.set(r, token);
}

/** Whether a verdict token is attached to the row object already. */
export function hasVerdictToken(r: ConfirmationRequest): boolean {
  return verdictTokens.has(r);
}

/** A request as the API returns it. The nonce and callback URL stay server-side: they are secrets. */
export function toApiRequest(r: ConfirmationRequest): ApiRequest {
  return {
    id: r.id,
    status: r.status,
    tool_name: r.toolName,
    tool_args: r.toolArgs,
    approved_args: r.approvedArgs,
    prompt: r.prompt,
    options: r.options,
    agent_id: r.agentId,
    user_id: r.userId,
    session_id: r.sessionId,
    tool_call_id: r.toolCallId,
    agent_kind: r.agentKind,
    context: r.context,
    metadata: r.metadata,
    summary: r.summary,
    channels: r.channels,
    approvers: r.approvers,
    required_approvals: r.requiredApprovals,
    on_timeout: r.onTimeout,
    idempotency_key: r.idempotencyKey,
    args_sha256: r.argsSha256,
    filed_by: r.filedBy,
    filed_by_person: r.filedByPerson,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    responded_at: r.respondedAt?.toISOString() ?? null,
    responded_by: r.respondedBy,
    responded_via: r.respondedVia,
    responded_by_person: r.respondedByPerson,
    on_behalf_of: r.onBehalfOf,
    decision_option: r.decisionOption,
    reason: r.reason,
    allowed: r.allowed,
    verdict_token: r.status === 'pending' ? null : (verdictTokens.get(r) ?? null),
  };
}

/** An audit event as the API returns it. */
export function toApiEvent(e: ConfirmationEvent): ApiEvent {
  return {
    id: e.id,
    request_id: e.requestId,
    type: e.type,
    actor: e.actor,
    channel: e.channel,
    detail: e.detail,
    at: e.at.toISOString(),
  };
}
