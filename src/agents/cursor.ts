/**
 * @module agents/cursor
 * Cursor (the editor's agent; not on npm): `.cursor/hooks.json` or `~/.cursor/hooks.json`, events
 * `beforeShellExecution` (input `{command, cwd}`) and `beforeMCPExecution` (input `{tool_name, tool_input, url |
 * command}`), with the common `{hook_event_name, conversation_id, generation_id, workspace_roots, model}`. Answer
 * `{"permission": "allow" | "deny" | "ask", "user_message", "agent_message"}`. No edited arguments: an edited
 * approval becomes a deny naming the edited call.
 */
import { blocking, edited, jsonAnswer } from './answer.js';
import { argsObject, firstText, optionalText, text } from './input.js';
import type { AgentAdapter } from './types.js';

const deny = (reason: string) => jsonAnswer({ permission: 'deny', user_message: reason, agent_message: reason });

/** Cursor's adapter. */
export const cursorAdapter: AgentAdapter = {
  kind: 'cursor',
  defaultWaitS: 50,
  toCall(input) {
    const shell = input.hook_event_name !== 'beforeMCPExecution';
    return {
      tool_name: shell ? 'Shell' : text(input.tool_name, 'tool_name'),
      tool_args: shell ? { command: text(input.command, 'command') } : argsObject(input.tool_input, 'tool_input'),
      session_id: optionalText(input.conversation_id),
      cwd: optionalText(input.cwd) ?? firstText(input.workspace_roots),
      model: optionalText(input.model),
      ...(optionalText(input.generation_id) ? { tool_call_id: optionalText(input.generation_id)! } : {}),
    };
  },
  answer(verdict) {
    if (verdict.outcome !== 'allow') return deny(verdict.reason);
    if (verdict.updatedArgs) return deny(`${verdict.reason}${edited(verdict.updatedArgs)}`);
    return jsonAnswer({ permission: 'allow', user_message: verdict.reason });
  },
  refuse(message) {
    return blocking(deny(`tollgate: ${message}`), `tollgate: ${message}`);
  },
};
