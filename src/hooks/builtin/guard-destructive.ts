/**
 * @module hooks/builtin/guard-destructive
 * `guard_destructive`: lionagi's guard against commands that destroy data: `rm -rf`, `git push --force`,
 * `git reset --hard`, `git clean -fd`, `drop table`/`drop database`, `truncate table`, `mkfs`, `dd if=`,
 * and writes to raw disks (`> /dev/sd*`).
 */
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import { matchesAny } from '../../utils/patterns.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Argument names that usually hold a command or a query. */
export const DEFAULT_COMMAND_KEYS = ['command', 'cmd', 'script', 'code', 'sql', 'query'];

/** The destructive patterns, each with the name a denial reports. A "segment" stops at `;`, `&` or `|`. */
export const DESTRUCTIVE_PATTERNS: readonly { name: string; re: RegExp }[] = [
  {
    name: 'rm -rf',
    re: /\brm\s+(?:[^;&|]*\s)?(?:-[a-zA-Z]*(?:[rR][a-zA-Z]*f|f[a-zA-Z]*[rR])[a-zA-Z]*|--recursive\s+(?:[^;&|]*\s)?--force|--force\s+(?:[^;&|]*\s)?--recursive)\b/,
  },
  { name: 'rm -r -f', re: /\brm\s+[^;&|]*(?:-[rR]\b[^;&|]*-f\b|-f\b[^;&|]*-[rR]\b)/ },
  { name: 'git push --force', re: /\bgit\s+push\b[^;&|]*\s(?:--force(?:-with-lease)?|-f)\b/ },
  { name: 'git reset --hard', re: /\bgit\s+reset\b[^;&|]*\s--hard\b/ },
  { name: 'git clean -fd', re: /\bgit\s+clean\b[^;&|]*\s-[a-zA-Z]*f/ },
  { name: 'drop table', re: /\bdrop\s+table\b/i },
  { name: 'drop database', re: /\bdrop\s+(?:database|schema)\b/i },
  { name: 'truncate table', re: /\btruncate\s+table\b/i },
  { name: 'mkfs', re: /\bmkfs(?:\.[a-z0-9]+)?\b/ },
  { name: 'dd if=', re: /\bdd\s+[^;&|]*\bif=/ },
  { name: '> /dev/sd*', re: />\s*\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d)/ },
];

/** Config of `guard_destructive`. */
export const guardDestructiveConfigSchema = z.strictObject({
  /** Tool name wildcards to inspect; default every tool. */
  tools: z.array(z.string()).default(['*']),
  /** Argument names to inspect. */
  arg_keys: z.array(z.string()).default(DEFAULT_COMMAND_KEYS),
  /** Further regexes (case-insensitive) that count as destructive. */
  extra_patterns: z.array(z.string()).default([]),
});

/** Config of `guard_destructive`. */
export type GuardDestructiveConfig = z.input<typeof guardDestructiveConfigSchema>;

/** The `guard_destructive` hook. */
export const guardDestructiveBuiltin = defineBuiltin({
  name: 'guard_destructive',
  summary: 'blocks destructive shell and SQL commands (lionagi list)',
  schema: guardDestructiveConfigSchema,
  points: ['tool:pre'],
  create: (config) => buildGuard(config),
});

/** Builds a `guard_destructive` hook; throws a HookConfigError for bad config. */
export function guardDestructiveHook(config: GuardDestructiveConfig = {}): HookObject {
  return buildGuard(parseOrThrow(guardDestructiveConfigSchema, config, undefined, 'guard_destructive'));
}

/** The name of the first destructive pattern `command` matches, if any. */
export function findDestructive(command: string, extra: readonly RegExp[] = []): string | undefined {
  const hit = DESTRUCTIVE_PATTERNS.find((p) => p.re.test(command));
  if (hit) return hit.name;
  return extra.find((re) => re.test(command))?.source;
}

function buildGuard(config: z.output<typeof guardDestructiveConfigSchema>): HookObject {
  let extra: RegExp[];
  try {
    extra = config.extra_patterns.map((s) => new RegExp(s, 'i'));
  } catch (err) {
    throw new TypeError(`guard_destructive: extra_patterns: ${(err as Error).message}`);
  }
  return {
    name: 'guard_destructive',
    shouldTrigger: (context) => matchesAny(context.toolName ?? '', config.tools),
    execute(context: HookContext): HookResult {
      for (const key of config.arg_keys) {
        const value = context.toolArgs?.[key];
        const texts =
          typeof value === 'string'
            ? [value]
            : Array.isArray(value)
              ? [value.filter((v) => typeof v === 'string').join(' ')]
              : [];
        for (const text of texts) {
          const hit = findDestructive(text, extra);
          if (hit) {
            const reason = `"${key}" contains a destructive operation (${hit}); it is blocked`;
            return { action: 'deny', reason, sideEffects: [`guard_destructive: blocked ${hit}`] };
          }
        }
      }
      return { action: 'continue' };
    },
  };
}
