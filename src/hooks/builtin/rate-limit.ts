/**
 * @module hooks/builtin/rate-limit
 * `rate_limit`: at most `max_calls` calls of a tool per `window_s` seconds per user (or per session, agent,
 * or globally), independent of any LLM rate limit. A sliding window on the registry's clock.
 */
import { z } from 'zod';
import { systemClock } from '../../utils/clock.js';
import type { Clock } from '../../utils/clock.js';
import { parseOrThrow } from '../config-errors.js';
import { matchesAny } from '../../utils/patterns.js';
import type { HookContext, HookObject, HookResult } from '../types.js';
import { defineBuiltin } from './types.js';

/** Config of `rate_limit`. */
export const rateLimitConfigSchema = z.strictObject({
  max_calls: z.number().int().positive(),
  window_s: z.number().positive(),
  /** Tool name wildcards this limit applies to (each tool counted separately); default every tool. */
  tools: z.array(z.string()).default(['*']),
  /** Whose calls share a window. */
  per: z.enum(['user', 'session', 'agent', 'global']).default('user'),
});

/** Config of `rate_limit`. */
export type RateLimitConfig = z.input<typeof rateLimitConfigSchema>;

/** The `rate_limit` hook. */
export const rateLimitBuiltin = defineBuiltin({
  name: 'rate_limit',
  summary: 'caps calls per tool per user in a sliding window',
  schema: rateLimitConfigSchema,
  points: ['tool:pre'],
  create: (config, deps) => buildRateLimit(config, deps.clock),
});

/** Builds a `rate_limit` hook; throws a HookConfigError for bad config. */
export function rateLimitHook(config: RateLimitConfig, clock: Clock = systemClock): HookObject {
  return buildRateLimit(parseOrThrow(rateLimitConfigSchema, config, undefined, 'rate_limit'), clock);
}

function buildRateLimit(config: z.output<typeof rateLimitConfigSchema>, clock: Clock): HookObject {
  const windowMs = config.window_s * 1000;
  const calls = new Map<string, number[]>();
  const whose = (context: HookContext): string => {
    if (config.per === 'global') return '*';
    const id = config.per === 'user' ? context.userId : config.per === 'session' ? context.sessionId : context.agentId;
    return id ?? '(unknown)';
  };

  return {
    name: 'rate_limit',
    shouldTrigger: (context) => matchesAny(context.toolName ?? '', config.tools),
    execute(context: HookContext): HookResult {
      const now = clock.now();
      const key = JSON.stringify([context.toolName, whose(context)]);
      const recent = (calls.get(key) ?? []).filter((t) => t > now - windowMs);
      if (recent.length >= config.max_calls) {
        calls.set(key, recent);
        const retryInS = Math.ceil(((recent[0] as number) + windowMs - now) / 1000);
        const reason = `rate limit reached: "${context.toolName}" may run ${config.max_calls} times per ${config.window_s} s per ${config.per}; try again in ${retryInS} s`;
        return {
          action: 'deny',
          reason,
          sideEffects: [`rate_limit: denied ${context.toolName} for ${config.per} ${whose(context)}`],
        };
      }
      recent.push(now);
      calls.set(key, recent);
      return { action: 'continue' };
    },
  };
}
