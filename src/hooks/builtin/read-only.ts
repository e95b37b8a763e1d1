/**
 * @module hooks/builtin/read-only
 * `read_only`: FIM One's read-only guard. While read-only mode is on, tools whose names look like writes
 * are denied. Mode is on always, or only when a metadata flag is truthy (e.g. the org's read-only switch).
 */
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import { matchesAny } from '../../utils/patterns.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Tool name wildcards treated as writes unless configured otherwise. */
export const DEFAULT_WRITE_TOOLS = [
  'write*',
  '*_write',
  '*_write_*',
  'edit*',
  '*_edit',
  'create*',
  '*_create',
  'update*',
  '*_update',
  'delete*',
  '*_delete',
  'remove*',
  '*_remove',
  'insert*',
  'drop*',
  'move*',
  'rename*',
  'upload*',
  'deploy*',
  'exec*',
  'run_*',
  'bash',
  'shell',
  'sql_*',
];

/** Config of `read_only`. */
export const readOnlyConfigSchema = z.strictObject({
  /** Wildcards of tools that write. */
  write_tools: z.array(z.string()).default(DEFAULT_WRITE_TOOLS),
  /** Exceptions: tools that match `write_tools` but are safe. */
  allow_tools: z.array(z.string()).default([]),
  /** When set, read-only mode is on only while `metadata[when_metadata]` is truthy. */
  when_metadata: z.string().min(1).optional(),
  /** Reason shown to the model. */
  reason: z.string().default('the workspace is in read-only mode; writes are blocked'),
});

/** Config of `read_only`. */
export type ReadOnlyConfig = z.input<typeof readOnlyConfigSchema>;

/** The `read_only` hook. */
export const readOnlyBuiltin = defineBuiltin({
  name: 'read_only',
  summary: 'denies write-like tools while read-only mode is on',
  schema: readOnlyConfigSchema,
  points: ['tool:pre'],
  create: (config) => buildReadOnly(config),
});

/** Builds a `read_only` hook; throws a HookConfigError for bad config. */
export function readOnlyHook(config: ReadOnlyConfig = {}): HookObject {
  return buildReadOnly(parseOrThrow(readOnlyConfigSchema, config, undefined, 'read_only'));
}

function buildReadOnly(config: z.output<typeof readOnlyConfigSchema>): HookObject {
  return {
    name: 'read_only',
    shouldTrigger: (context) => (config.when_metadata ? Boolean(context.metadata[config.when_metadata]) : true),
    execute(context: HookContext): HookResult {
      const tool = context.toolName ?? '';
      if (!matchesAny(tool, config.write_tools) || matchesAny(tool, config.allow_tools)) return { action: 'continue' };
      return { action: 'deny', reason: config.reason, sideEffects: [`read_only: blocked ${tool}`] };
    },
  };
}
