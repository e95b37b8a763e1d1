/**
 * @module requests/types
 * The ConfirmationRequest domain: what a request is, which states it moves through, and the events it leaves.
 */
import type { CallSummary } from '../summaries/types.js';

/** Every state a request can be in. `pending` is the only one that ever changes. */
export const REQUEST_STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
/** A request's state. */
export type RequestStatus = (typeof REQUEST_STATUSES)[number];
/** The states a request ends in. */
export type FinalStatus = Exclude<RequestStatus, 'pending'>;

/** What an approver says. */
export type Decision = 'approve' | 'deny';

/** What happens when nobody answers in time. */
export type TimeoutPolicy = 'deny' | 'approve';

/** Where a card goes: a channel type (`slack`, `feishu`, `web`) and, for chat channels, a chat or user id. */
export interface ChannelTarget {
  type: string;
  target?: string;
}

/** Who did something: `slack:U0123`, `feishu:ou_…`, `web:alice`, `api:<name>`, or `system`. */
export type ActorId = string;

/**
 * Where a coding agent was working when it asked: its own session id, the working directory, the git repository
 * (`owner/name` from the `origin` remote, else the directory's name) and branch, and the model. Every field may be null.
 */
export interface AgentContext {
  session_id: string | null;
  cwd: string | null;
  repo: string | null;
  branch: string | null;
  model: string | null;
}

/** A confirmation request as the domain sees it (camelCase, Date objects). The API shape is in `requests/serialize.ts`. */
export interface ConfirmationRequest {
  id: string;
  status: RequestStatus;
  toolName: string;
  toolArgs: Record<string, unknown>;
  /** Arguments an approver edited; the runtime should run these instead of `toolArgs`. */
  approvedArgs: Record<string, unknown> | null;
  prompt: string | null;
  options: string[];
  agentId: string | null;
  userId: string | null;
  sessionId: string | null;
  toolCallId: string | null;
  /** Which coding agent asked (`codex`, `gemini`, … `tollgate hook <agent>`); null for other callers. */
  agentKind: string | null;
  /** Where the coding agent was working when it asked (shown on cards, filterable by repository); null for other callers. */
  context: AgentContext | null;
  metadata: Record<string, unknown>;
  /** What the call will do and how risky it looks (`summaries/`), computed when filed; null for rows from before it. */
  summary: CallSummary | null;
  channels: ChannelTarget[];
  /** Allowlist of actor ids; empty = anyone who can see the card. */
  approvers: string[];
  requiredApprovals: number;
  onTimeout: TimeoutPolicy;
  idempotencyKey: string | null;
  /** SHA-256 of the canonical JSON of `toolName` + `toolArgs`: binds a verdict to the exact arguments. */
  argsSha256: string;
  callbackUrl: string | null;
  /** Name of the API token that filed the request; null when filed in-process. */
  filedBy: string | null;
  /** The person the filing token speaks for, if it names one: that person may not approve the request either. */
  filedByPerson: string | null;
  /** Random secret carried by card buttons; a tap must present it. */
  nonce: string;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
  respondedAt: Date | null;
  respondedBy: ActorId | null;
  respondedVia: string | null;
  /** The person behind `respondedBy` (a directory id, or the account itself when the directory does not know it). */
  respondedByPerson: string | null;
  /** The absentee a delegate decided for (`respondedByPerson` is the delegate), or null. */
  onBehalfOf: string | null;
  decisionOption: string | null;
  reason: string | null;
  /** true: the tool may run; false: it may not; null: still pending. */
  allowed: boolean | null;
}

/** Audit event types (contract): what auditors find in `confirmation_events.type`. */
export const EVENT_TYPES = [
  'created',
  'delivered',
  'delivery_failed',
  'reminded',
  'escalated',
  'decision_rejected',
  'approved',
  'denied',
  'expired',
  'cancelled',
  'callback_sent',
  'callback_failed',
  'update_failed',
  'post_call',
  'executed',
  'execution_failed',
  'grant_created',
  'grant_revoked',
] as const;
/** One audit event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** One row of the append-only audit trail. */
export interface ConfirmationEvent {
  id: number;
  requestId: string;
  type: EventType;
  actor: ActorId | null;
  channel: string | null;
  detail: Record<string, unknown>;
  at: Date;
}

/** `eventsOf`'s answer by request id, each request's events in the order given (one pass; no copy per event). */
export function eventsByRequest(events: readonly ConfirmationEvent[]): Map<string, ConfirmationEvent[]> {
  const byRequest = new Map<string, ConfirmationEvent[]>();
  for (const event of events) {
    const own = byRequest.get(event.requestId);
    if (own) own.push(event);
    else byRequest.set(event.requestId, [event]);
  }
  return byRequest;
}

/** An event about to be written (the store assigns `id`). */
export type NewEvent = Omit<ConfirmationEvent, 'id' | 'requestId'>;

/** Where a card was sent and what the platform called it. */
export interface ChannelMessage {
  requestId: string;
  channel: string;
  target: string;
  /** The platform's reference (Slack `channel:ts`, Feishu message id); null until sent. */
  messageRef: string | null;
  /** `pending` (not yet sent), `sent`, `failed` (gave up), `updated` (shows the final state). */
  status: 'pending' | 'sent' | 'failed' | 'updated';
  attempts: number;
  lastError: string | null;
  updatedAt: Date;
}
