/**
 * @module hooks/builtin/policy
 * `policy`: PulseBot's allow/deny lists. Evaluated in this order, first match wins:
 * 1. `deny_tools` matches the tool name → deny;
 * 2. any `deny_argument_patterns[key]` regex finds a match in that argument → deny;
 * 3. `allow_tools` is set and does not match → deny;
 * 4. otherwise continue.
 */
import { z } from 'zod';
import { parseOrThrow } from '../config-errors.js';
import { matchesWildcard } from '../../utils/patterns.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

const regexString = z.string().refine((source) => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}, 'invalid regular expression');

/** Config of `policy`. Wildcards as in shell globs; `deny_argument_patterns` key `*` checks every argument. */
export const policyConfigSchema = z.strictObject({
  allow_tools: z.array(z.string()).optional(),
  deny_tools: z.array(z.string()).optional(),
  deny_argument_patterns: z.record(z.string(), z.array(regexString)).optional(),
});

/** Config of `policy`. */
export type PolicyConfig = z.input<typeof policyConfigSchema>;

/** The `policy` hook. */
export const policyBuiltin = defineBuiltin({
  name: 'policy',
  summary: 'allow/deny tool lists and argument regexes (PulseBot order)',
  schema: policyConfigSchema,
  points: ['tool:pre'],
  create: (config) => buildPolicy(config),
});

/** Builds a `policy` hook; throws a HookConfigError for bad config. */
export function policyHook(config: PolicyConfig): HookObject {
  return buildPolicy(parseOrThrow(policyConfigSchema, config, undefined, 'policy'));
}

function buildPolicy(config: z.output<typeof policyConfigSchema>): HookObject {
  const argRules = Object.entries(config.deny_argument_patterns ?? {}).map(
    ([key, sources]) => [key, sources.map((s) => ({ source: s, re: new RegExp(s) }))] as const,
  );
  const deny = (reason: string): HookResult => ({ action: 'deny', reason, sideEffects: [`policy: ${reason}`] });

  return {
    name: 'policy',
    execute(context: HookContext): HookResult {
      const tool = context.toolName ?? '';
      const denied = config.deny_tools?.find((p) => matchesWildcard(tool, p));
      if (denied) return deny(`tool "${tool}" is not allowed by policy (matches "${denied}")`);
      const args = context.toolArgs ?? {};
      for (const [key, rules] of argRules) {
        const values = key === '*' ? Object.entries(args) : Object.hasOwn(args, key) ? [[key, args[key]] as const] : [];
        for (const [argName, value] of values) {
          const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
          const hit = rules.find((r) => r.re.test(text));
          if (hit) return deny(`argument "${argName}" of "${tool}" matches the blocked pattern /${hit.source}/`);
        }
      }
      if (config.allow_tools && !config.allow_tools.some((p) => matchesWildcard(tool, p))) {
        return deny(`tool "${tool}" is not on the policy's allow list`);
      }
      return { action: 'continue' };
    },
  };
}
