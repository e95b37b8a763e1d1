/**
 * @module http/rate-limit
 * Per-token rate limits of `/v1`. Each authenticated call counts against its token's budget (by token name, so
 * every `TOLLGATE_API_TOKENS` admin token shares the budget of "admin"); decisions count against a second, smaller
 * one too. Over budget the call answers `429` problem+json (`tollgate_rate_limited`) with `Retry-After`, before any
 * handler runs, so a refused call files, decides or records nothing.
 *
 * Windows are fixed and cut on the gateway's {@link Clock} (window = floor(now / length)), so tests move time on a
 * ManualClock and every replica agrees on where a window ends. The counting itself is rate-limiter-flexible's: in
 * memory, or on Redis when `REDIS_URL` is set so that all replicas share one budget per token; while Redis is
 * unreachable each replica falls back to its own in-memory count (its insurance limiter) rather than refusing or
 * waving through every call.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type {
  RateLimiterAbstract,
  RateLimiterMemory as MemoryLimiter,
  RateLimiterRedis as RedisLimiter,
  RateLimiterRes as LimiterRes,
} from 'rate-limiter-flexible';
import type { Clock } from '../utils/clock.js';
import { TollgateError, describeError } from '../api/errors.js';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../tokens/rate-limits.js';
import { principalOf } from './auth.js';

// The package's index loads every limiter it has (Mongo, MySQL, DynamoDB, Prisma, Drizzle, etc.: 36 files, about 20 ms
// of CPU at every start); tollgate uses two of them, read here by path (the package has no exports map), and the
// Redis one only when REDIS_URL is set.
const requireCjs = createRequire(import.meta.url);
const RateLimiterMemory = requireCjs('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof MemoryLimiter;
const RateLimiterRes = requireCjs('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof LimiterRes;

/** How long the first calls wait for Redis before counting in memory (the insurance limiter) instead. */
const REDIS_WAIT_MS = 1000;

/** Which budget a call counts against. */
export type RateLimitBudget = 'requests' | 'decisions';

/** Options of {@link TokenRateLimits}. */
export interface TokenRateLimitOptions extends Partial<RateLimitSettings> {
  /** The gateway's clock: windows are cut on it. */
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /** Share the counts of every replica through this Redis (`REDIS_URL`); in memory without it. */
  redisUrl?: string | null;
  /** Prefix of the Redis keys (default `tollgate`, as `TOLLGATE_QUEUE_PREFIX`). */
  keyPrefix?: string;
}

/** A call refused for its token's rate limit: `429`, with the seconds to wait in `Retry-After`. */
export class RateLimitedError extends TollgateError {
  constructor(
    message: string,
    /** Seconds until the token's window ends (sent as `Retry-After`). */
    override readonly retryAfterS: number,
  ) {
    super(message, 429, 'tollgate_rate_limited');
    this.name = 'RateLimitedError';
  }
}

/** The per-token limits of one gateway process; {@link close} it on shutdown (it may hold a Redis connection). */
export class TokenRateLimits {
  /** The settings in force. */
  readonly settings: RateLimitSettings;
  private readonly limiters: Promise<Partial<Record<RateLimitBudget, RateLimiterAbstract>>>;
  private redis: Redis | null = null;

  constructor(private readonly options: TokenRateLimitOptions) {
    this.settings = {
      requests: options.requests ?? DEFAULT_RATE_LIMITS.requests,
      decisions: options.decisions ?? DEFAULT_RATE_LIMITS.decisions,
      windowS: options.windowS ?? DEFAULT_RATE_LIMITS.windowS,
    };
    this.limiters = this.build();
  }

  /**
   * Middleware counting each call against the caller's `budget` (after bearer auth: it reads the principal).
   * @example app.use('/v1', authenticate, limits.limit('requests'), v1)
   */
  limit(budget: RateLimitBudget): RequestHandler {
    if (this.settings[budget] === 0) return (_req, _res, next) => next();
    return async (req, res, next) => {
      await this.check(budget, principalOf(res).name, {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        reqId: res.locals.requestId as unknown,
      });
      next();
    };
  }

  /**
   * Counts one call of `tokenName` against `budget`; rejects with {@link RateLimitedError} when it is over budget.
   * `where` (method, path, request id) only goes into the one warning per token and window.
   */
  async check(budget: RateLimitBudget, tokenName: string, where: Record<string, unknown>): Promise<void> {
    if (this.settings[budget] === 0) return;
    const refusal = await this.consume(budget, tokenName);
    if (!refusal) return;
    const { windowS } = this.settings;
    const allowed = this.settings[budget];
    // One warning per token, budget and window (shared across replicas on Redis), not one per refused call.
    if (refusal.first) {
      this.options.logger.warn(
        { tokenName, budget, limit: allowed, windowS, retryAfterS: refusal.retryAfterS, ...where },
        'rate limit reached: token refused until its window ends',
      );
    }
    const what = budget === 'decisions' ? 'decisions' : 'calls';
    throw new RateLimitedError(
      `token "${tokenName}" may make ${allowed} ${what} per ${windowS} s; try again in ${refusal.retryAfterS} s`,
      refusal.retryAfterS,
    );
  }

  /** Closes the Redis connection, if any. */
  async close(): Promise<void> {
    await this.limiters.catch(() => undefined);
    if (!this.redis) return;
    const { closeRedis } = await import('../scheduler/redis-connections.js');
    await closeRedis(this.redis);
  }

  /** Counts one call; null when it is within budget, else when the window ends and whether this is its first refusal. */
  private async consume(
    budget: RateLimitBudget,
    tokenName: string,
  ): Promise<{ retryAfterS: number; first: boolean } | null> {
    const limiter = (await this.limiters)[budget];
    if (!limiter) return null;
    const windowMs = this.settings.windowS * 1000;
    const now = this.options.clock.now();
    const index = Math.floor(now / windowMs);
    try {
      await limiter.consume(`${budget}:${index}:${tokenName}`);
      return null;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        // Limits protect the gateway; they do not authorise. A broken counter lets the call through, loudly.
        this.options.logger.error(
          { err: describeError(error), tokenName, budget },
          'rate limit counter failed; call let through',
        );
        return null;
      }
      const retryAfterS = Math.max(1, Math.ceil(((index + 1) * windowMs - now) / 1000));
      return { retryAfterS, first: error.consumedPoints === this.settings[budget] + 1 };
    }
  }

  private async build(): Promise<Partial<Record<RateLimitBudget, RateLimiterAbstract>>> {
    const budgets = (['requests', 'decisions'] as const).filter((b) => this.settings[b] > 0);
    // Keys carry their window number; a key lives two windows so it outlasts its window even on a replica whose
    // clock runs a little behind. Expired keys are the library's to delete.
    const duration = this.settings.windowS * 2;
    const memory = (points: number, keyPrefix: string) => new RateLimiterMemory({ points, duration, keyPrefix });
    const redisUrl = this.options.redisUrl;
    if (redisUrl) {
      const { createFailFastRedis } = await import('../scheduler/redis-connections.js');
      this.redis = createFailFastRedis(redisUrl, 500, 'tollgate-rate-limit');
      this.redis.on('error', () => {
        // ioredis reports each failed reconnect; the insurance limiter covers the outage, readiness reports Redis.
      });
      // The first calls wait (briefly) for the connection, so a fresh replica counts on the shared budget at once.
      await Promise.race([
        once(this.redis, 'ready'),
        new Promise((resolve) => setTimeout(resolve, REDIS_WAIT_MS).unref()),
      ]).catch(() => undefined);
    }
    const prefix = `${this.options.keyPrefix ?? 'tollgate'}:ratelimit`;
    const RateLimiterRedis = this.redis
      ? (requireCjs('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof RedisLimiter)
      : null;
    return Object.fromEntries(
      budgets.map((b) => {
        const points = this.settings[b];
        const limiter =
          this.redis && RateLimiterRedis
            ? new RateLimiterRedis({
                storeClient: this.redis,
                points,
                duration,
                keyPrefix: prefix,
                rejectIfRedisNotReady: true,
                insuranceLimiter: memory(points, `${prefix}:insurance`),
              })
            : memory(points, prefix);
        return [b, limiter];
      }),
    );
  }
}
