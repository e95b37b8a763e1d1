/**
 * @module agents/cline
 * Cline (`cline` CLI 3.x and the VS Code extension, hooks v3.36+): an executable named `PreToolUse` in
 * `.clinerules/hooks/` (project) or `~/Documents/Cline/Hooks/` (user). Input `{clineVersion, hookName, timestamp,
 * taskId, workspaceRoots, userId, preToolUse: {toolName, parameters}}`; answer `{"cancel": bool, "errorMessage",
 * "contextModification"}`, and (the 3.0 CLI) `overrideInput` for edited arguments. No "ask". A `cancel` ends the
 * whole task, its `errorMessage` the reason the user reads (checked with the real CLI: the model gets no tool result).
 * Its hook sees every tool, the one that ends the task too: those that only speak to the user pass ungated.
 */
import { blocking, jsonAnswer } from './answer.js';
import { firstText, object, optionalText, text } from './input.js';
import type { AgentAdapter } from './types.js';

const cancel = (reason: string) => jsonAnswer({ cancel: true, errorMessage: reason, contextModification: reason });

/** Cline's adapter. */
export const clineAdapter: AgentAdapter = {
  kind: 'cline',
  defaultWaitS: 50,
  // The 3.0 CLI ends a task only through submit_and_exit and asks with ask_question; the VS Code extension's names for
  // the same are attempt_completion, ask_followup_question and plan_mode_respond. Its PreToolUse hook sees them all.
  ungated: ['submit_and_exit', 'ask_question', 'attempt_completion', 'ask_followup_question', 'plan_mode_respond'],
  toCall(input) {
    const call = object(input.preToolUse, 'preToolUse');
    return {
      tool_name: text(call.toolName, 'preToolUse.toolName'),
      tool_args: object(call.parameters ?? {}, 'preToolUse.parameters'),
      session_id: optionalText(input.taskId),
      cwd: firstText(input.workspaceRoots),
      model: optionalText(input.model),
    };
  },
  answer(verdict) {
    if (verdict.outcome !== 'allow') return cancel(verdict.reason);
    return jsonAnswer({ cancel: false, ...(verdict.updatedArgs ? { overrideInput: verdict.updatedArgs } : {}) });
  },
  refuse(message) {
    return blocking(cancel(`tollgate: ${message}`), `tollgate: ${message}`);
  },
};
