/**
 * @module hooks/builtin/guard-paths
 * `guard_paths`: lionagi's workspace rule. Every path-like argument must resolve inside an allowed root
 * (default: the workspace root, which defaults to the process cwd at call time). Relative paths resolve
 * against the workspace root, not the process cwd; symlinks are followed so a link cannot lead outside.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import { matchesAny } from '../../utils/patterns.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Argument names that usually hold a path. */
export const DEFAULT_PATH_KEYS = [
  'path',
  'file_path',
  'filepath',
  'file',
  'filename',
  'dir',
  'directory',
  'cwd',
  'source',
  'destination',
  'target',
  'paths',
];

/** Config of `guard_paths`. */
export const guardPathsConfigSchema = z.strictObject({
  /** Roots a path may be under; relative ones resolve against the workspace root. Default: the workspace root. */
  allowed_paths: z.array(z.string().min(1)).optional(),
  /** The workspace root; default the process cwd at call time. */
  workspace_root: z.string().min(1).optional(),
  /** Tool name wildcards to inspect; default every tool. */
  tools: z.array(z.string()).default(['*']),
  /** Argument names that hold paths (strings or arrays of strings). */
  path_keys: z.array(z.string()).default(DEFAULT_PATH_KEYS),
});

/** Config of `guard_paths`. */
export type GuardPathsConfig = z.input<typeof guardPathsConfigSchema>;

/** The `guard_paths` hook. */
export const guardPathsBuiltin = defineBuiltin({
  name: 'guard_paths',
  summary: 'keeps file arguments inside the workspace (lionagi rule)',
  schema: guardPathsConfigSchema,
  points: ['tool:pre'],
  create: (config, deps) => buildGuard({ ...config, workspace_root: config.workspace_root ?? deps.cwd }),
});

/** Builds a `guard_paths` hook; throws a HookConfigError for bad config. */
export function guardPathsHook(config: GuardPathsConfig = {}): HookObject {
  return buildGuard(parseOrThrow(guardPathsConfigSchema, config, undefined, 'guard_paths'));
}

/** Resolves `path` the way the guard does: against `root`, symlinks followed as far as the path exists. */
export function resolveRealPath(path: string, root: string): string {
  const absolute = resolve(root, path);
  let existing = absolute;
  // Walk up to the deepest ancestor that exists, resolve its symlinks, then re-append the rest.
  for (;;) {
    try {
      const real = realpathSync(existing);
      return resolve(real, relative(existing, absolute));
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      existing = parent;
    }
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function buildGuard(config: z.output<typeof guardPathsConfigSchema>): HookObject {
  return {
    name: 'guard_paths',
    shouldTrigger: (context) => matchesAny(context.toolName ?? '', config.tools),
    execute(context: HookContext): HookResult {
      const root = resolve(config.workspace_root ?? process.cwd());
      const allowed = (config.allowed_paths ?? [root]).map((p) => resolveRealPath(p, root));
      for (const key of config.path_keys) {
        const value = context.toolArgs?.[key];
        const paths =
          typeof value === 'string'
            ? [value]
            : Array.isArray(value)
              ? value.filter((v): v is string => typeof v === 'string')
              : [];
        for (const path of paths) {
          const real = resolveRealPath(path, root);
          if (!allowed.some((a) => isInside(real, a))) {
            const reason = `path "${path}" (argument "${key}") is outside the allowed workspace (${allowed.join(', ')})`;
            return { action: 'deny', reason, sideEffects: [`guard_paths: blocked ${real}`] };
          }
        }
      }
      return { action: 'continue' };
    },
  };
}
