/**
 * @module agents/gemini
 * Gemini CLI (`@google/gemini-cli`): `settings.json` `hooks.BeforeTool` command hooks. Input `{session_id, cwd,
 * hook_event_name: "BeforeTool", tool_name, tool_input}` (env `GEMINI_SESSION_ID`). Answer `{"decision": "allow"}`,
 * or `{"decision": "deny", "reason": R}` (the model reads "Tool execution blocked: R"); edited arguments go in
 * `hookSpecificOutput.tool_input`. No "ask". JSON on stdout is read whatever the exit code, and a hook that times
 * out or crashes fails **open**: the hook answers before Gemini's 60 s default.
 */
import { blocking, jsonAnswer } from './answer.js';
import { object, optionalText, text } from './input.js';
import type { AgentAdapter } from './types.js';

const deny = (reason: string) => jsonAnswer({ decision: 'deny', reason });

/** Gemini CLI's adapter. */
export const geminiAdapter: AgentAdapter = {
  kind: 'gemini',
  defaultWaitS: 50,
  toCall(input, env) {
    return {
      tool_name: text(input.tool_name, 'tool_name'),
      tool_args: object(input.tool_input ?? {}, 'tool_input'),
      session_id: optionalText(input.session_id) ?? optionalText(env.GEMINI_SESSION_ID),
      cwd: optionalText(input.cwd) ?? optionalText(env.GEMINI_PROJECT_DIR),
      model: optionalText(input.model),
    };
  },
  answer(verdict) {
    if (verdict.outcome !== 'allow') return deny(verdict.reason);
    if (verdict.updatedArgs)
      return jsonAnswer({
        decision: 'allow',
        reason: verdict.reason,
        hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: verdict.updatedArgs },
      });
    return jsonAnswer({ decision: 'allow', reason: verdict.reason });
  },
  refuse(message) {
    return blocking(deny(`tollgate: ${message}`), `tollgate: ${message}`);
  },
};
