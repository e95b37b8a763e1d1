/**
 * @module integrations/claude-code
 * Claude Code's PreToolUse and PermissionRequest hooks, mapped onto tollgate: the hook input becomes a confirmation
 * request, the verdict becomes the event's `hookSpecificOutput`. Used by `POST /v1/hooks/claude-code`, which answers
 * HTTP hooks and `tollgate claude-hook` (the command hook forwards its stdin there), so both answer alike.
 * PostToolUse / PostToolUseFailure report how a gated call ran (see `claude-code-receipt.ts`).
 *
 * Re-attaching and deferred verdicts (`same-call.ts`, as for every coding agent): the request's idempotency key is
 * `claude-code:<tool_use_id>`, so the same tool call asked again — after a gateway restart, say — gets the same
 * request back. A hook whose wait ends first answers a deny naming the request's link; the same call asked again
 * (same token, agent, working directory, tool and input, in any session: `claude -p` starts a new one per run)
 * re-attaches while the request is pending, is allowed at once once it is approved (exactly once: the approval is
 * then marked used), and refused at once once it is denied. PermissionRequest inputs carry no `tool_use_id`, so they
 * find their request by that second rule only.
 */
import { boundedJsonObject } from '../utils/json-bounds.js';
import { z } from 'zod';
import { parseInput, type CreateRequestInput } from '../api/api-schema.js';
import { toApiRequest, type ApiRequest } from '../requests/serialize.js';
import { CLAUDE_HOOK_EVENTS } from './claude-code-events.js';
import { requestFields, type GateRequestOptions } from './request-options.js';
import { deferredReason, editedReason, usedReason, type SameCallOutcome } from './same-call.js';
import { verdictOf } from './verdict.js';

/** The `agent_id` recorded on requests from Claude Code unless configured otherwise. */
export const CLAUDE_CODE_AGENT_ID = 'claude-code';

/** A hook event that asks for a decision. */
export type ClaudeDecisionEvent = 'PreToolUse' | 'PermissionRequest';

/** What Claude Code sends the hook (on stdin, or as the HTTP hook's body). Unknown fields are kept. */
export const claudeHookInputSchema = z.looseObject({
  hook_event_name: z
    .enum(CLAUDE_HOOK_EVENTS, {
      error: `this hook handles ${CLAUDE_HOOK_EVENTS.map((e) => `"${e}"`).join(', ')} events only`,
    })
    .optional(),
  tool_name: z.string().min(1).max(200),
  tool_input: boundedJsonObject,
  tool_use_id: z.string().min(1).max(180).optional(),
  session_id: z.string().min(1).max(200).optional(),
  cwd: z.string().max(4000).optional(),
  permission_mode: z.string().max(100).optional(),
  transcript_path: z.string().max(4000).optional(),
  /** PostToolUseFailure: why the tool failed (kept, truncated, in the receipt). */
  error_message: z.string().optional(),
  /** Added by `tollgate claude-hook`: the git repository and branch of `cwd`, read from `.git` (HTTP hooks send none). */
  tollgate_git: z
    .strictObject({ repo: z.string().max(400).nullable(), branch: z.string().max(400).nullable() })
    .optional(),
});
/** A validated hook input. */
export type ClaudeHookInput = z.infer<typeof claudeHookInputSchema>;

/** What a PreToolUse hook answers. */
export interface PreToolUseOutput {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny';
    permissionDecisionReason: string;
    updatedInput?: Record<string, unknown>;
  };
}

/** What a PermissionRequest hook answers: `message` tells the model why on a deny; `updatedInput` runs edited args. */
export interface PermissionRequestOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow'; updatedInput?: Record<string, unknown> } | { behavior: 'deny'; message: string };
  };
}

/** What a deciding hook answers. */
export type ClaudeHookOutput = PreToolUseOutput | PermissionRequestOutput;

/** The deciding event of an input (PreToolUse when the input names none, as older hosts and tests send). */
export function decisionEventOf(input: ClaudeHookInput): ClaudeDecisionEvent {
  return input.hook_event_name === 'PermissionRequest' ? 'PermissionRequest' : 'PreToolUse';
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
  if (input.hook_event_name === 'PermissionRequest') metadata.hook_event = 'PermissionRequest';
  return {
    tool_name: input.tool_name,
    tool_args: input.tool_input,
    agent_kind: 'claude',
    context: {
      session_id: input.session_id ?? null,
      cwd: input.cwd ?? null,
      repo: input.tollgate_git?.repo ?? null,
      branch: input.tollgate_git?.branch ?? null,
      model: null,
    },
    ...(input.session_id ? { session_id: input.session_id } : {}),
    ...(input.tool_use_id
      ? { tool_call_id: input.tool_use_id, idempotency_key: claudeIdempotencyKey(input.tool_use_id) }
      : {}),
    metadata,
    ...requestFields(options, CLAUDE_CODE_AGENT_ID),
  };
}

/**
 * The hook's answer for a request. A request still pending (the hook stopped waiting) is a `deny` whose reason says
 * so: the model reads it and can make the call again later, which re-attaches to the same request.
 */
export function claudeHookOutput(request: ApiRequest, event: ClaudeDecisionEvent = 'PreToolUse'): ClaudeHookOutput {
  const verdict = verdictOf(request);
  if (event === 'PermissionRequest') {
    // No tool_use_id here, so a re-ask finds the request only while it is pending: say so rather than promise more.
    if (verdict.outcome === 'pending') {
      return claudeHookDeny(
        `Still waiting for a human to approve this call (tollgate request ${request.id}); it expires at ${request.expires_at}. ` +
          'Asking again with the same call while it is still pending re-attaches to this request instead of asking anew.',
        event,
      );
    }
    if (verdict.outcome !== 'allow') return claudeHookDeny(verdict.reason, event);
    return {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', ...(verdict.updatedArgs ? { updatedInput: verdict.updatedArgs } : {}) },
      },
    };
  }
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
export function claudeHookDeny(reason: string, event: ClaudeDecisionEvent = 'PreToolUse'): ClaudeHookOutput {
  if (event === 'PermissionRequest')
    return {
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } },
    };
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  };
}

/**
 * The hook's answer to a call gated through deferred verdicts (`same-call.ts`): the verdict, or a deny telling the
 * model the request's link (`url`) and to run the same call again once it is approved, or that the approval was used.
 */
export function claudeSameCallOutput(
  outcome: SameCallOutcome,
  event: ClaudeDecisionEvent,
  url: string,
): ClaudeHookOutput {
  if (outcome.state === 'pending') return claudeHookDeny(deferredReason(outcome.request, url), event);
  if (outcome.state === 'used') return claudeHookDeny(usedReason(outcome.request), event);
  if (outcome.state === 'edited') return claudeHookDeny(editedReason(outcome.request), event);
  return claudeHookOutput(toApiRequest(outcome.request), event);
}
