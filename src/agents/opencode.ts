/**
 * @module agents/opencode
 * OpenCode (`opencode-ai`): no command hooks; a plugin's `tool.execute.before` may throw to stop a call.
 * `tollgate init opencode` writes a small plugin (`.opencode/plugin/tollgate.js`) that runs `tollgate hook opencode`
 * with `{tool, sessionID, callID, args, directory, model}` on stdin and throws the reason unless it reads
 * `{"allow": true}` (replacing the arguments with `args` when an approver edited them). Any other exit or output
 * is a throw: the plugin fails closed.
 */
import { blocking, jsonAnswer } from './answer.js';
import { object, optionalText, text } from './input.js';
import type { AgentAdapter } from './types.js';

const deny = (reason: string) => jsonAnswer({ allow: false, reason });

/** OpenCode's adapter (the plugin's protocol). */
export const opencodeAdapter: AgentAdapter = {
  kind: 'opencode',
  defaultWaitS: 540,
  toCall(input) {
    return {
      tool_name: text(input.tool, 'tool'),
      tool_args: object(input.args ?? {}, 'args'),
      session_id: optionalText(input.sessionID),
      cwd: optionalText(input.directory),
      model: optionalText(input.model),
      ...(optionalText(input.callID) ? { tool_call_id: optionalText(input.callID)! } : {}),
    };
  },
  answer(verdict) {
    if (verdict.outcome !== 'allow') return deny(verdict.reason);
    return jsonAnswer({
      allow: true,
      reason: verdict.reason,
      ...(verdict.updatedArgs ? { args: verdict.updatedArgs } : {}),
    });
  },
  refuse(message) {
    return blocking(deny(`tollgate: ${message}`), `tollgate: ${message}`);
  },
};
