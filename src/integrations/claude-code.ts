/**
 * @module integrations/claude-code
 * Claude Code's PreToolUse hook, mapped onto tollgate: the hook input becomes a confirmation request, the verdict
 * becomes `hookSpecificOutput`. Used by `tollgate claude-hook` (command hooks) and `POST /v1/hooks/claude-code`
 * (HTTP hooks), so both answer alike.
 *
 * Re-attaching: the request's idempotency key is `claude-code:<tool_use_id>`, so the same tool call asked again —
 * after the hook gave up waiting, after a gateway restart — gets the same request back (200) and, once decided,
 * its verdict at once. A call retried under a new `tool_use_id` (the model tried again after "still pending") with
 * the same session, tool and input re-attaches to the request while it is still pending: one card, not two.
 */
import { boundedJsonObject } from '../json-bounds.js';
import { z } from 'zod';
import { parseInput, type CreateRequestInput } from '../api-schema.js';
import { GateClientError } from '../client/errors.js';
import type { GateClient } from '../client/gate-client.js';
import { argsSha256 } from '../requests/args-hash.js';
import type { ApiRequest } from '../requests/serialize.js';
import { requestFields, type GateRequestOptions } from './request-options.js';
import { verdictOf } from './verdict.js';

/** The `agent_id` recorded on requests from Claude Code unless configured otherwise. */
export const CLAUDE_CODE_AGENT_ID = 'claude-code';

/** Default seconds a hook waits before answering "still pending": safely under Claude Code's 10-minute hook timeout. */
export const CLAUDE_HOOK_DEFAULT_WAIT_S = 540;

/** What Claude Code sends a PreToolUse hook (on stdin, or as the HTTP hook's body). Unknown fields are kept. */
export const claudeHookInputSchema = z.looseObject({
  hook_event_name: z.literal('PreToolUse', { error: 'this hook handles "PreToolUse" events only' }).optional(),
  tool_name: z.string().min(1).max(200),
  tool_input: boundedJsonObject,
  tool_use_id: z.string().min(1).max(180).optional(),
  session_id: z.string().min(1).max(200).optional(),
  cwd: z.string().max(4000).optional(),
  permission_mode: z.string().max(100).optional(),
  transcript_path: z.string().max(4000).optional(),
});
/** A validated PreToolUse hook input. */
export type ClaudeHookInput = z.infer<typeof claudeHookInputSchema>;

/** What a PreToolUse hook answers. */
export interface ClaudeHookOutput {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny';
    permissionDecisionReason: string;
    updatedInput?: Record<string, unknown>;
  };
}

/** Validates a hook input; throws `ValidationError` naming the field (`tool_input: …`). */
export function parseClaudeHookInput(input: unknown): ClaudeHookInput {
  return parseInput(claudeHookInputSchema, input, 'hook input');
}

/** The idempotency key of a tool call: one request per `tool_use_id`. */
export function claudeIdempotencyKey(toolUseId: string): string {
  return `claude-code:${toolUseId}`;
}

/** The `POST /v1/requests` body for a hook input. */
export function claudeCodeRequest(input: ClaudeHookInput, options: GateRequestOptions = {}): CreateRequestInput {
  const metadata: Record<string, unknown> = { source: 'claude-code' };
  if (input.cwd) metadata.cwd = input.cwd;
  if (input.permission_mode) metadata.permission_mode = input.permission_mode;
  return {
    tool_name: input.tool_name,
    tool_args: input.tool_input,
    ...(input.session_id ? { session_id: input.session_id } : {}),
    ...(input.tool_use_id ? { tool_call_id: input.tool_use_id, idempotency_key: claudeIdempotencyKey(input.tool_use_id) } : {}),
    metadata,
    ...requestFields(options, CLAUDE_CODE_AGENT_ID),
  };
}

/**
 * The hook's answer for a request. A request still pending (the hook stopped waiting) is a `deny` whose reason says
 * so: the model reads it and can make the call again later, which re-attaches to the same request.
 */
export function claudeHookOutput(request: ApiRequest): ClaudeHookOutput {
  const verdict = verdictOf(request);
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.outcome === 'allow' ? 'allow' : 'deny',
      permissionDecisionReason: verdict.reason,
      ...(verdict.outcome === 'allow' && verdict.updatedArgs ? { updatedInput: verdict.updatedArgs } : {}),
    },
  };
}

/** A `deny` answer for a failure that is not a verdict (the tool call reused with other arguments, say). */
export function claudeHookDeny(reason: string): ClaudeHookOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/**
 * Files the hook's request through the API, or re-attaches to a pending request of the same session, tool and
 * input filed under another `tool_use_id` — the client-side twin of the HTTP route's rule.
 */
export async function fileOrAttachClaudeRequest(client: GateClient, body: CreateRequestInput, options: { retryForMs?: number } = {}): Promise<ApiRequest> {
  if (body.session_id) {
    const hash = argsSha256(body.tool_name, body.tool_args ?? {});
    try {
      const page = await client.list({ status: 'pending', agent_id: body.agent_id ?? CLAUDE_CODE_AGENT_ID, tool_name: body.tool_name, limit: 50 });
      const twin = page.items.find((r) => r.session_id === body.session_id && r.args_sha256 === hash);
      if (twin) return twin;
    } catch (error) {
      // An unreachable gateway is not fatal here: filing below retries until the deadline.
      if (!(error instanceof GateClientError) || !error.retryable) throw error;
    }
  }
  return client.request(body, { retryForMs: options.retryForMs });
}
