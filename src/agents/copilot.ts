/**
 * @module agents/copilot
 * GitHub Copilot CLI (`@github/copilot`): hooks in `.github/hooks/*.json` (`{"version": 1, "hooks": {"preToolUse":
 * [{"type": "command", "bash": "…", "timeoutSec": S}]}}`). Input `{timestamp, cwd, toolName, toolArgs}` where
 * `toolArgs` is JSON text; answer `{"permissionDecision": "allow" | "deny", "permissionDecisionReason"}`, edited
 * arguments as `modifiedArgs`.
 */
import { blocking, jsonAnswer } from './answer.js';
import { argsObject, optionalText, text } from './input.js';
import type { AgentAdapter } from './types.js';

const deny = (reason: string) => jsonAnswer({ permissionDecision: 'deny', permissionDecisionReason: reason });

/** Copilot CLI's adapter. */
export const copilotAdapter: AgentAdapter = {
  kind: 'copilot',
  defaultWaitS: 50,
  toCall(input) {
    return {
      tool_name: text(input.toolName, 'toolName'),
      tool_args: argsObject(input.toolArgs, 'toolArgs'),
      session_id: optionalText(input.sessionId),
      cwd: optionalText(input.cwd),
      model: optionalText(input.model),
    };
  },
  answer(verdict) {
    if (verdict.outcome !== 'allow') return deny(verdict.reason);
    return jsonAnswer({
      permissionDecision: 'allow',
      permissionDecisionReason: verdict.reason,
      ...(verdict.updatedArgs ? { modifiedArgs: verdict.updatedArgs } : {}),
    });
  },
  refuse(message) {
    return blocking(deny(`tollgate: ${message}`), `tollgate: ${message}`);
  },
};
