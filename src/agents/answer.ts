/**
 * @module agents/answer
 * The shapes every adapter's answers share: JSON on stdout, and the fail-closed form (the deny JSON *and* exit code 2
 * with the message on stderr), which stops the call in every agent whichever of the two it reads.
 */
import type { HookAnswer } from './types.js';

/** Exit code that blocks a call in the agents that read exit codes (Claude Code, Codex, Gemini CLI, Qwen Code). */
export const BLOCK = 2;

/** `value` as one JSON line on stdout, exit 0. */
export function jsonAnswer(value: unknown): HookAnswer {
  return { stdout: `${JSON.stringify(value)}\n`, stderr: '', exitCode: 0 };
}

/** A deny answer made fail-closed: the same stdout, exit {@link BLOCK}, and the message on stderr. */
export function blocking(deny: HookAnswer, message: string): HookAnswer {
  return { ...deny, stderr: `${message}\n`, exitCode: BLOCK };
}

/** A deferred verdict's reason is the model's instruction; a deny's, the approver's words. Both are what it reads. */
export function edited(args: Record<string, unknown> | null): string {
  return args
    ? ` An approver edited the arguments; this agent cannot run edited arguments, so make this call instead: ${JSON.stringify(args)}`
    : '';
}
