/**
 * @module tokens/rate-limits
 * How many `/v1` calls one token may make per window: the settings and where they come from (environment over the
 * YAML file's `rate_limits`, over generous defaults). The middleware that counts lives in `http/rate-limit.ts`.
 */
import { z } from 'zod';
import { ValidationError } from '../api/errors.js';

/** Per-token budgets; a budget of 0 turns that limit off. */
export interface RateLimitSettings {
  /** Calls per window per token on `/v1` (every call, decisions included). */
  requests: number;
  /** Decisions (`POST /v1/requests/:id/decision`) per window per token, on top of `requests`. */
  decisions: number;
  /** The window in whole seconds. */
  windowS: number;
}

/**
 * Generous defaults: 10 calls a second sustained for one agent (a long-polling agent makes about one a minute) and
 * 2 decisions a second for one approver bridge, which no human clicking approves comes near.
 */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimitSettings> = Object.freeze({
  requests: 600,
  decisions: 120,
  windowS: 60,
});

const budget = z.int().min(0).max(1_000_000_000);
const window = z.int().min(1).max(86_400);

/** The YAML file's `rate_limits` section. */
export const rateLimitsFileSchema = z.strictObject({
  requests: budget.optional(),
  decisions: budget.optional(),
  window_s: window.optional(),
});

/** The environment variables that set each budget (they win over the file). */
export const RATE_LIMIT_ENV = {
  requests: 'TOLLGATE_RATE_LIMIT',
  decisions: 'TOLLGATE_RATE_LIMIT_DECISIONS',
  windowS: 'TOLLGATE_RATE_LIMIT_WINDOW_S',
} as const satisfies Record<keyof RateLimitSettings, string>;

/**
 * The settings in force: each from its environment variable, else the file, else {@link DEFAULT_RATE_LIMITS}.
 * @throws ValidationError naming the variable that is not a whole number in range.
 */
export function readRateLimits(
  env: Record<string, string | undefined>,
  file: z.infer<typeof rateLimitsFileSchema> = {},
): RateLimitSettings {
  const fromEnv = (key: keyof RateLimitSettings, schema: z.ZodInt): number | undefined => {
    const name = RATE_LIMIT_ENV[key];
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const parsed = schema.safeParse(/^\d+$/.test(raw) ? Number(raw) : Number.NaN);
    if (!parsed.success)
      throw new ValidationError(
        `${name}: expected a whole number ${key === 'windowS' ? 'of seconds from 1 to 86400' : '(0 turns the limit off)'}, got "${raw.slice(0, 40)}"`,
        [{ path: name, message: 'expected a whole number' }],
      );
    return parsed.data;
  };
  return {
    requests: fromEnv('requests', budget) ?? file.requests ?? DEFAULT_RATE_LIMITS.requests,
    decisions: fromEnv('decisions', budget) ?? file.decisions ?? DEFAULT_RATE_LIMITS.decisions,
    windowS: fromEnv('windowS', window) ?? file.window_s ?? DEFAULT_RATE_LIMITS.windowS,
  };
}
