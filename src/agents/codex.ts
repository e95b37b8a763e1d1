/**
 * @module agents/codex
 * Codex CLI (`@openai/codex`): `$CODEX_HOME/hooks.json` `PreToolUse` (and `PermissionRequest`) command hooks.
 * Input `{session_id, turn_id, cwd, model, tool_name, tool_input, tool_use_id, hook_event_name}`. To allow, Codex wants
 * **nothing** on stdout (`"allow"` is unsupported and shows the hook as failed); to deny, `hookSpecificOutput` with
 * `permissionDecision: "deny"` (the model reads "Command blocked by PreToolUse hook: <reason>"). PermissionRequest
 * answers `decision: {behavior, message}`. Codex reserves `updatedInput`: an edited approval becomes a deny naming
 * the edited call. A hook that times out or crashes fails **open**, hence the wait under its 600 s default.
 */
import { blocking, edited, jsonAnswer } from './answer.js';
import { claudeStyleCall } from './input.js';
import type { AgentAdapter, AgentVerdict, HookAnswer } from './types.js';

const isPermissionRequest = (input: Record<string, unknown>) => input.hook_event_name === 'PermissionRequest';

function deny(reason: string, permissionRequest: boolean): HookAnswer {
  return jsonAnswer(
    permissionRequest
      ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } } }
      : {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: reason,
          },
        },
  );
}

/** Codex's adapter. */
export const codexAdapter: AgentAdapter = {
  kind: 'codex',
  defaultWaitS: 540,
  toCall: claudeStyleCall,
  answer(verdict: AgentVerdict, input) {
    const permissionRequest = isPermissionRequest(input);
    if (verdict.outcome !== 'allow') return deny(verdict.reason, permissionRequest);
    if (verdict.updatedArgs) return deny(`${verdict.reason}${edited(verdict.updatedArgs)}`, permissionRequest);
    if (permissionRequest)
      return jsonAnswer({
        hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
      });
    return { stdout: '', stderr: '', exitCode: 0 };
  },
  refuse(message) {
    return blocking(deny(`tollgate: ${message}`, false), `tollgate: ${message}`);
  },
};
