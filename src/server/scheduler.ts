/**
 * @module server/scheduler
 * The scheduler and change feed `createServer` (src/server.ts) runs on: BullMQ with Redis pub/sub when `REDIS_URL` is
 * set (loaded only then), else the in-process scheduler.
 */
import type { Logger } from 'pino';
import type { TollgateConfig } from '../config.js';
import { InProcessScheduler } from '../scheduler/in-process.js';
import type { Scheduler } from '../scheduler/types.js';
import type { Clock } from '../utils/clock.js';

/** The scheduler and change feed for the configuration: BullMQ + Redis pub/sub with `REDIS_URL`, else in-process. */
export async function schedulerFor(
  config: TollgateConfig,
  logger: Logger,
  clock: Clock | undefined,
  sweepEveryMs: number | undefined,
) {
  if (!config.redisUrl) {
    return {
      scheduler: new InProcessScheduler({ clock, logger, sweepEveryMs }) as Scheduler,
      feed: undefined,
      readiness: {},
      close: async () => {},
    };
  }
  const { bullmqBackend } = await import('../scheduler/bullmq-backend.js');
  return bullmqBackend(config.redisUrl, { logger, sweepEveryMs, clock, prefix: config.env.TOLLGATE_QUEUE_PREFIX });
}
