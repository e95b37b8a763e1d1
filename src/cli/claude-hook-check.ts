/**
 * @module cli/claude-hook-check
 * What is wrong with a `claude-hook` call's flags or input, checked with the gateway's own validators (zod), so the
 * hook names a bad field or flag in the gateway's words even when the gateway cannot be reached. Loaded by the hook
 * only after a failure; in the package it is a separate file beside the hook's bundle, so its answer is plain data:
 * an error class of its own module graph is not the bundle's, and `instanceof` would not see it across the two.
 */
import { ValidationError } from '../api/errors.js';
import { parseClaudeHookInput } from '../integrations/claude-code.js';
import { UsageError, type ParsedArgs } from './args.js';
import { requestOptionsFromFlags } from './request-flags.js';

/** A problem found: a bad flag (`usage`: printed with the usage line) or bad hook input. */
export type HookProblem = { usage: string } | { input: string };

/** Checks the flags, then the hook input; null when both are fine. Other errors are thrown. */
export async function hookProblem(args: ParsedArgs, input: unknown): Promise<HookProblem | null> {
  try {
    await requestOptionsFromFlags(args);
  } catch (error) {
    if (error instanceof UsageError) return { usage: error.message };
    throw error;
  }
  try {
    parseClaudeHookInput(input);
    return null;
  } catch (error) {
    if (error instanceof ValidationError) return { input: `invalid hook input: ${error.message}` };
    throw error;
  }
}
