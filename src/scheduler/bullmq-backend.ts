/**
 * @module scheduler/bullmq-backend
 * The production scheduler backend, built from `REDIS_URL`: a {@link BullMQScheduler} for timers and jobs and a
 * {@link RedisChangeFeed} for cross-process wake-ups, under one key prefix. The composition root hands both to the
 * gateway; `gateway.stop()` stops the scheduler (workers drain, connections close) and `feed.close()` closes the feed.
 * `/readyz` reads `scheduler.health()` and `feed.health()`, which name what is not ready (e.g. `redis reconnecting`).
 */
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import { BullMQScheduler } from './bullmq.js';
import { RedisChangeFeed } from './redis-change-feed.js';

/** Options of {@link bullmqBackend}. */
export interface BullMQBackendOptions {
  logger: Logger;
  /** Sweep period in ms (default 60 000; 0 turns it off). */
  sweepEveryMs?: number;
  /** Key prefix for queues and the pub/sub channel (default `tollgate`); gateways sharing work share a prefix. */
  prefix?: string;
  clock?: Clock;
}

/** A scheduler and change feed that live in Redis, plus what to close on shutdown beyond them (nothing). */
export interface BullMQBackend {
  scheduler: BullMQScheduler;
  feed: RedisChangeFeed;
  /** Extra `/readyz` checks: none, scheduler and feed report through their own `health()`. */
  readiness: Record<string, never>;
  /** Nothing else to close: the gateway stops the scheduler, the server closes the feed. */
  close(): Promise<void>;
}

/**
 * Builds the Redis backend. Never waits for Redis: with Redis down, the gateway still starts and serves.
 * @example
 * const { scheduler, feed } = bullmqBackend(process.env.REDIS_URL!, { logger });
 * const gateway = new Gateway({ store, scheduler, feed });
 */
export function bullmqBackend(url: string, options: BullMQBackendOptions): BullMQBackend {
  const prefix = options.prefix || 'tollgate';
  const scheduler = new BullMQScheduler({
    connection: url,
    prefix,
    sweepEveryMs: options.sweepEveryMs,
    clock: options.clock,
    logger: options.logger.child({ component: 'scheduler' }),
  });
  const feed = new RedisChangeFeed({
    connection: url,
    prefix,
    logger: options.logger.child({ component: 'change-feed' }),
  });
  return { scheduler, feed, readiness: {}, close: async () => undefined };
}
