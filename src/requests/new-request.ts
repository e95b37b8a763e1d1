/**
 * @module requests/new-request
 * What a runtime asks for, and the pending {@link ConfirmationRequest} made from it: ids, nonce, defaults, expiry.
 */
import { ConflictError } from '../api/errors.js';
import { pooledRandomBytes } from '../utils/random-pool.js';
import { uuidv7 } from './ids.js';
import type { AgentContext, ChannelTarget, ConfirmationRequest, TimeoutPolicy } from './types.js';
import type { CallSummary, ToolAnnotations } from '../summaries/types.js';

/** What a runtime asks for (the camelCase twin of the `POST /v1/requests` body). */
export interface NewRequestInput {
  toolName: string;
  toolArgs?: Record<string, unknown>;
  prompt?: string;
  options?: string[];
  agentId?: string;
  userId?: string;
  sessionId?: string;
  toolCallId?: string;
  /** The coding agent that asked (`tollgate hook <agent>`). */
  agentKind?: string;
  /** Where that agent was working. */
  context?: AgentContext;
  metadata?: Record<string, unknown>;
  channels?: ChannelTarget[];
  approvers?: string[];
  requiredApprovals?: number;
  timeoutS?: number;
  onTimeout?: TimeoutPolicy;
  idempotencyKey?: string;
  callbackUrl?: string;
  /** Name of the API token filing the request (set by the HTTP API, never by the caller). */
  filedBy?: string;
  /** The person the filing token speaks for (the self-approval rule compares it with the approver's person). */
  filedByPerson?: string;
  /** An MCP tool's annotations as its upstream server declared them (`tollgate mcp`), for the call summary. */
  toolAnnotations?: ToolAnnotations;
  /** What the call will do (set by the gateway as it files, from `toolName`, `toolArgs`, `context` and annotations). */
  summary?: CallSummary;
}

/** Defaults applied to requests that leave a field out. */
export interface GatewayDefaults {
  /** Seconds before a request expires (300). */
  timeoutS: number;
  /** Cards for requests that name no channel (`[{type:'web'}]`). */
  channels: ChannelTarget[];
  /** Button labels (`["Approve","Deny"]`). */
  options: string[];
  /** What expiry means (`deny`). */
  onTimeout: TimeoutPolicy;
}

/**
 * A new pending request for `input`, with `defaults` filling what it leaves out. `cards` are the resolved channel
 * targets; `argsSha256` the hash of its tool name and arguments.
 */
export function newConfirmationRequest(
  input: NewRequestInput,
  defaults: GatewayDefaults,
  cards: ChannelTarget[],
  argsSha256: string,
  now: Date,
): ConfirmationRequest {
  return {
    id: uuidv7(now.getTime()),
    status: 'pending',
    toolName: input.toolName,
    toolArgs: input.toolArgs ?? {},
    approvedArgs: null,
    prompt: input.prompt ?? null,
    options: input.options ?? defaults.options,
    agentId: input.agentId ?? null,
    userId: input.userId ?? null,
    sessionId: input.sessionId ?? null,
    toolCallId: input.toolCallId ?? null,
    agentKind: input.agentKind ?? null,
    context: input.context ?? null,
    metadata: input.metadata ?? {},
    summary: input.summary ?? null,
    // A card without a target (a channel that reads from the database) is recorded as just its type.
    channels: cards.map((c) => (c.target ? c : { type: c.type })),
    approvers: input.approvers ?? [],
    requiredApprovals: input.requiredApprovals ?? 1,
    onTimeout: input.onTimeout ?? defaults.onTimeout,
    idempotencyKey: input.idempotencyKey ?? null,
    argsSha256,
    callbackUrl: input.callbackUrl ?? null,
    filedBy: input.filedBy ?? null,
    filedByPerson: input.filedByPerson ?? null,
    // The secret a card's buttons carry: a tap without it is refused.
    nonce: pooledRandomBytes(18).toString('base64url'),
    createdAt: now,
    expiresAt: new Date(now.getTime() + (input.timeoutS ?? defaults.timeoutS) * 1000),
    updatedAt: now,
    respondedAt: null,
    respondedBy: null,
    respondedVia: null,
    respondedByPerson: null,
    onBehalfOf: null,
    decisionOption: null,
    reason: null,
    allowed: null,
  };
}

/**
 * The request filed before under the same idempotency key, when it is for the same call (tool name and arguments,
 * by their hash); a 409 otherwise, since a key reused for another call is a bug in the runtime, not a retry.
 */
export function sameArgsOrConflict(existing: ConfirmationRequest, hash: string): ConfirmationRequest {
  if (existing.argsSha256 !== hash) {
    throw new ConflictError(
      `idempotency_key "${existing.idempotencyKey}" was used for request ${existing.id} with other tool_name/tool_args`,
    );
  }
  return existing;
}
