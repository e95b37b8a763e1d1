/**
 * @module hooks/builtin/truncate-result
 * `truncate_result`: keeps oversized tool results out of the model's context (FIM One's plan: 8k chars).
 * Non-string results are measured and cut as their JSON text.
 */
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Config of `truncate_result`. */
export const truncateResultConfigSchema = z.strictObject({
  max_chars: z.number().int().positive().default(8000),
});

/** Config of `truncate_result`. */
export type TruncateResultConfig = z.input<typeof truncateResultConfigSchema>;

/** The `truncate_result` hook. */
export const truncateResultBuiltin = defineBuiltin({
  name: 'truncate_result',
  summary: 'cuts tool results longer than max_chars (default 8000)',
  schema: truncateResultConfigSchema,
  points: ['tool:post'],
  create: (config) => buildTruncate(config),
});

/** Builds a `truncate_result` hook; throws a HookConfigError for bad config. */
export function truncateResultHook(config: TruncateResultConfig = {}): HookObject {
  return buildTruncate(parseOrThrow(truncateResultConfigSchema, config, undefined, 'truncate_result'));
}

function buildTruncate(config: z.output<typeof truncateResultConfigSchema>): HookObject {
  return {
    name: 'truncate_result',
    execute(context: HookContext): HookResult {
      const text = typeof context.result === 'string' ? context.result : JSON.stringify(context.result);
      if (text === undefined || text.length <= config.max_chars) return { action: 'continue' };
      const dropped = text.length - config.max_chars;
      // The note tells the model the text is partial, so it does not reason from a cut-off end.
      const data = `${text.slice(0, config.max_chars)}\n[… truncated ${dropped} characters of ${text.length}]`;
      return { action: 'modify', data, sideEffects: [`truncate_result: cut ${dropped} of ${text.length} characters`] };
    },
  };
}
