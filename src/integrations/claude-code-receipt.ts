/**
 * @module integrations/claude-code-receipt
 * Claude Code's PostToolUse / PostToolUseFailure hooks as receipts: after a gated call ran, the hook reports it, so
 * the request's audit trail reads proposed → approved → executed (or execution_failed), with a check that the
 * input that ran is the approved one.
 *
 * Finding the request: the one filed under the call's `tool_use_id` (PreToolUse's idempotency key). A call gated by
 * PermissionRequest (whose input has no `tool_use_id`) is found by session, tool and input — original or approver-
 * edited — among requests filed without a tool call id, allowed, and not yet reported. A call tollgate never gated
 * has no request, and nothing is recorded.
 */
import type { Gateway } from '../gateway/gateway.js';
import { argsSha256 } from '../requests/args-hash.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import type { Principal } from '../tokens/scopes.js';
import { newestMatch } from './attach.js';
import { CLAUDE_CODE_AGENT_ID, claudeIdempotencyKey, type ClaudeHookInput } from './claude-code.js';
import { HAND_OUT_DETAIL } from './same-call.js';

/** Longest failure text kept in a receipt. */
const DETAIL_MAX = 2000;

/** A receipt as the API takes it. */
export interface ClaudeReceipt {
  outcome: 'succeeded' | 'failed';
  detail?: string;
  args_sha256: string;
}

/** The receipt of a post-tool input: the input that ran, hashed like the request's arguments. */
export function claudeReceipt(input: ClaudeHookInput): ClaudeReceipt {
  const args_sha256 = argsSha256(input.tool_name, input.tool_input);
  if (input.hook_event_name !== 'PostToolUseFailure') return { outcome: 'succeeded', args_sha256 };
  return {
    outcome: 'failed',
    args_sha256,
    ...(input.error_message ? { detail: input.error_message.slice(0, DETAIL_MAX) } : {}),
  };
}

/** Whether a PostToolUse receipt is there already (the hook's hand-out receipt says only that it let the call run). */
const reported = (events: ConfirmationEvent[]) =>
  events.some(
    (e) =>
      (e.type === 'executed' || e.type === 'execution_failed') &&
      !String(e.detail.detail ?? '').startsWith(HAND_OUT_DETAIL),
  );

/** Finds the gated request `filedBy` (the token's name) filed for a post-tool input (`POST /v1/hooks/claude-code`), or null. */
export async function findClaudeRequestInGateway(
  gateway: Gateway,
  input: ClaudeHookInput,
  filedBy: string | null,
  agentId = CLAUDE_CODE_AGENT_ID,
): Promise<ConfirmationRequest | null> {
  if (input.tool_use_id) {
    const byKey = await gateway.getByIdempotencyKey(claudeIdempotencyKey(input.tool_use_id), filedBy);
    if (byKey) return byKey;
  }
  const match = await newestMatch(
    gateway,
    {
      agentId,
      sessionId: input.session_id,
      filedBy: filedBy ?? undefined,
      toolName: input.tool_name,
      toolArgs: input.tool_input,
    },
    true,
  );
  if (!match || match.toolCallId !== null || match.allowed !== true) return null;
  return reported(await gateway.events(match.id)) ? null : match;
}

/**
 * Records the receipt of a post-tool input on its request, when there is one the caller's token filed — a receipt is
 * the agent's own word, and a tool_use_id belongs to the token that filed it (an admin reports through
 * `POST /v1/requests/:id/receipt`).
 */
export async function recordClaudeReceipt(
  gateway: Gateway,
  input: ClaudeHookInput,
  principal: Principal,
  agentId?: string,
): Promise<string | null> {
  const request = await findClaudeRequestInGateway(gateway, input, principal.name, agentId);
  if (!request) return null;
  const receipt = claudeReceipt(input);
  await gateway.recordReceipt(request.id, {
    outcome: receipt.outcome,
    detail: receipt.detail,
    argsSha256: receipt.args_sha256,
    actor: `token:${principal.name}`,
  });
  return request.id;
}
