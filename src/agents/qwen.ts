/**
 * @module agents/qwen
 * Qwen Code (`@qwen-code/qwen-code`, a Gemini CLI fork with Claude-style hook events): `~/.qwen/settings.json`
 * `hooks.PreToolUse` command hooks. Input `{session_id, cwd, hook_event_name: "PreToolUse", tool_name, tool_input,
 * tool_use_id, permission_mode}`. Answer `hookSpecificOutput.permissionDecision` (`allow` / `deny`) with
 * `permissionDecisionReason`, and `updatedInput` for edited arguments. Its hooks time out after 60 s by default.
 */
import { blocking, jsonAnswer } from './answer.js';
import { claudeStyleCall } from './input.js';
import type { AgentAdapter } from './types.js';

const output = (decision: 'allow' | 'deny', reason: string, updatedInput?: Record<string, unknown>) =>
  jsonAnswer({
    decision,
    reason,
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      permissionDecisionReason: reason,
      ...(updatedInput ? { updatedInput } : {}),
    },
  });

/** Qwen Code's adapter. */
export const qwenAdapter: AgentAdapter = {
  kind: 'qwen',
  defaultWaitS: 50,
  toCall: claudeStyleCall,
  answer(verdict) {
    if (verdict.outcome !== 'allow') return output('deny', verdict.reason);
    return output('allow', verdict.reason, verdict.updatedArgs ?? undefined);
  },
  refuse(message) {
    return blocking(output('deny', `tollgate: ${message}`), `tollgate: ${message}`);
  },
};
