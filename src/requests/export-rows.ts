/**
 * @module requests/export-rows
 * A request's exported fields as a flat row: the API's fields in a fixed order, JSON fields as their
 * `JSON.stringify` text. What a store that reads whole requests (PostgreSQL, SQLite's query for several people) turns
 * into export lines (`export-lines.ts`), and the order SQLite's SQL-built lines follow.
 */
import type { ApiRequest } from './serialize.js';
import type { ConfirmationEvent, ConfirmationRequest } from './types.js';

/**
 * The API fields an export writes, in `toApiRequest`'s order (`test/unit/export-rows.test.ts` holds them equal);
 * `verdict_token` follows them, always null: exports sign nothing (see `stores/verdict-tokens.ts`).
 */
export const EXPORT_FIELDS = [
  'id',
  'status',
  'tool_name',
  'tool_args',
  'approved_args',
  'prompt',
  'options',
  'agent_id',
  'user_id',
  'session_id',
  'tool_call_id',
  'agent_kind',
  'context',
  'metadata',
  'summary',
  'channels',
  'approvers',
  'required_approvals',
  'on_timeout',
  'idempotency_key',
  'args_sha256',
  'filed_by',
  'filed_by_person',
  'created_at',
  'expires_at',
  'updated_at',
  'responded_at',
  'responded_by',
  'responded_via',
  'responded_by_person',
  'on_behalf_of',
  'decision_option',
  'reason',
  'allowed',
] as const satisfies readonly (keyof ApiRequest)[];

/** One of {@link EXPORT_FIELDS}. */
export type ExportField = (typeof EXPORT_FIELDS)[number];

/** The fields an {@link ExportRow} holds as JSON text (objects and arrays in the API). */
export const EXPORT_JSON_FIELDS: ReadonlySet<ExportField> = new Set([
  'tool_args',
  'approved_args',
  'options',
  'context',
  'metadata',
  'summary',
  'channels',
  'approvers',
]);

/** Where `allowed` sits in an {@link ExportRow}. */
export const EXPORT_ALLOWED = EXPORT_FIELDS.indexOf('allowed');

/**
 * One request as an export reads it: the values of {@link EXPORT_FIELDS} in order. JSON fields are JSON text exactly
 * as `JSON.stringify` writes the value (null stays null), times ISO 8601 text as `toISOString` writes them,
 * `required_approvals` a number, `allowed` a boolean or null, the rest strings or null.
 */
export type ExportRow = (string | number | boolean | null)[];

/** A request as an {@link ExportRow}: for stores that read whole requests (PostgreSQL), and what the SQLite rows must equal. */
export function exportRowOf(r: ConfirmationRequest): ExportRow {
  return [
    r.id,
    r.status,
    r.toolName,
    JSON.stringify(r.toolArgs),
    r.approvedArgs === null ? null : JSON.stringify(r.approvedArgs),
    r.prompt,
    JSON.stringify(r.options),
    r.agentId,
    r.userId,
    r.sessionId,
    r.toolCallId,
    r.agentKind,
    r.context === null ? null : JSON.stringify(r.context),
    JSON.stringify(r.metadata),
    r.summary == null ? null : JSON.stringify(r.summary),
    JSON.stringify(r.channels),
    JSON.stringify(r.approvers),
    r.requiredApprovals,
    r.onTimeout,
    r.idempotencyKey,
    r.argsSha256,
    r.filedBy,
    r.filedByPerson,
    r.createdAt.toISOString(),
    r.expiresAt.toISOString(),
    r.updatedAt.toISOString(),
    r.respondedAt?.toISOString() ?? null,
    r.respondedBy,
    r.respondedVia,
    r.respondedByPerson,
    r.onBehalfOf,
    r.decisionOption,
    r.reason,
    r.allowed,
  ];
}

/** Collects receipts by request id. */
export function receiptsById(events: readonly ConfirmationEvent[]): Map<string, ConfirmationEvent> {
  const receipts = new Map<string, ConfirmationEvent>();
  for (const e of events) receipts.set(e.requestId, e);
  return receipts;
}
