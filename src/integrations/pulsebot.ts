/**
 * @module integrations/pulsebot
 * PulseBot's `webhook` tool-call hook, answered by tollgate. PulseBot POSTs `{tool_name, arguments, session_id}`
 * before each tool call and expects `{verdict: "approve"|"deny"|"modify", reasoning, modified_arguments}`; after
 * the call it POSTs the same fields plus `"event": "post_call"`.
 *
 * Matching (PulseBot sends no call id): a pre-call files a request with `agent_id` `pulsebot` and the PulseBot
 * session id; a retry of the same call (same session, tool and arguments) re-attaches to a pending request, or to
 * one decided within the late-verdict window that PulseBot has not yet run (see `attach.ts`). A `post_call` is
 * recorded as a `post_call` event on the newest request of that session and tool whose arguments — original or
 * approver-edited — equal the ones PulseBot ran. A `tool_call_id` field, when a PulseBot build sends one, is used
 * instead: it is the idempotency key `pulsebot:<tool_call_id>` and finds the request directly.
 */
import { boundedJsonObject, boundedJsonValue } from '../utils/json-bounds.js';
import { z } from 'zod';
import { parseInput, type CreateRequestInput } from '../api/api-schema.js';
import type { ApiRequest } from '../requests/serialize.js';
import { requestFields, type GateRequestOptions } from './request-options.js';
import { verdictOf } from './verdict.js';

/** The `agent_id` recorded on requests from PulseBot unless configured otherwise. */
export const PULSEBOT_AGENT_ID = 'pulsebot';

/** The largest `post_call` result kept in the audit event, in characters of JSON. */
export const POST_CALL_RESULT_LIMIT = 4000;

/** PulseBot's webhook body (pre-call, or post-call with `event`). Unknown fields are ignored. */
export const pulsebotHookSchema = z.looseObject({
  tool_name: z.string().min(1).max(200),
  arguments: boundedJsonObject.default({}),
  // PulseBot sends "" when the call has no session.
  session_id: z.string().max(200).optional(),
  tool_call_id: z.string().min(1).max(180).optional(),
  event: z.enum(['pre_call', 'post_call']).optional(),
  result: boundedJsonValue.optional(),
});
/** A validated PulseBot webhook body. */
export type PulsebotHookBody = z.infer<typeof pulsebotHookSchema>;

/** PulseBot's expected answer. `request_id` and `status` are extra, for people reading PulseBot's logs. */
export interface PulsebotVerdict {
  verdict: 'approve' | 'deny' | 'modify';
  reasoning: string;
  modified_arguments: Record<string, unknown>;
  request_id?: string;
  status?: ApiRequest['status'];
}

/** Validates a webhook body; throws `ValidationError` naming the field. */
export function parsePulsebotHook(body: unknown): PulsebotHookBody {
  return parseInput(pulsebotHookSchema, body, 'body');
}

/** The idempotency key for a PulseBot call id. */
export function pulsebotIdempotencyKey(toolCallId: string): string {
  return `pulsebot:${toolCallId}`;
}

/** The `POST /v1/requests` body for a pre-call. */
export function pulsebotRequest(body: PulsebotHookBody, options: GateRequestOptions = {}): CreateRequestInput {
  return {
    tool_name: body.tool_name,
    tool_args: body.arguments,
    ...(body.session_id ? { session_id: body.session_id } : {}),
    ...(body.tool_call_id
      ? { tool_call_id: body.tool_call_id, idempotency_key: pulsebotIdempotencyKey(body.tool_call_id) }
      : {}),
    metadata: { source: 'pulsebot' },
    ...requestFields(options, PULSEBOT_AGENT_ID),
  };
}

/** PulseBot's verdict for a request: approved with edited arguments is `modify`; still pending is `deny`. */
export function pulsebotVerdict(request: ApiRequest): PulsebotVerdict {
  const verdict = verdictOf(request);
  const base = { reasoning: verdict.reason, request_id: request.id, status: request.status };
  if (verdict.outcome === 'allow' && verdict.updatedArgs)
    return { verdict: 'modify', modified_arguments: verdict.updatedArgs, ...base };
  return { verdict: verdict.outcome === 'allow' ? 'approve' : 'deny', modified_arguments: {}, ...base };
}

/** The `post_call` event detail: the result, truncated so one chatty tool cannot bloat the audit table. */
export function postCallDetail(body: PulsebotHookBody): Record<string, unknown> {
  const detail: Record<string, unknown> = {};
  if (body.result !== undefined) {
    const json = JSON.stringify(body.result) ?? 'null';
    detail.result =
      json.length <= POST_CALL_RESULT_LIMIT
        ? body.result
        : { truncated: true, json: json.slice(0, POST_CALL_RESULT_LIMIT) };
    const success = (body.result as { success?: unknown } | null)?.success;
    if (typeof success === 'boolean') detail.success = success;
  }
  return detail;
}
