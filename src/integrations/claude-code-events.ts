/**
 * @module integrations/claude-code-events
 * The facts about Claude Code's hook events that `tollgate claude-hook` needs before it has talked to the gateway.
 * Kept free of imports: the command hook is a fresh `node` process per tool call, and loading zod and the API schemas
 * would cost it more than the gateway's answer does (see `cli/claude-hook.ts`).
 */

/** Default seconds a hook waits before answering "still pending": safely under Claude Code's 10-minute hook timeout. */
export const CLAUDE_HOOK_DEFAULT_WAIT_S = 540;

/** The hook events tollgate answers: two that decide, two that report how the call ran. */
export const CLAUDE_HOOK_EVENTS = ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure'] as const;

/** Whether the input reports a call that ran (PostToolUse / PostToolUseFailure) rather than asking for a decision. */
export function isPostToolEvent(input: { hook_event_name?: unknown }): boolean {
  return input.hook_event_name === 'PostToolUse' || input.hook_event_name === 'PostToolUseFailure';
}

/**
 * Response headers of `POST /v1/hooks/claude-code` on a decision: the request's id and status. Claude Code ignores
 * them; `tollgate claude-hook` reads the status to tell "still pending" (ask again while time is left) from a verdict.
 */
export const CLAUDE_HOOK_HEADERS = { requestId: 'tollgate-request-id', status: 'tollgate-request-status' } as const;
