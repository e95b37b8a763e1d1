/**
 * @module scheduler/redis-backend
 * The production backend: BullMQ scheduler + Redis pub/sub change feed, built from `REDIS_URL`.
 */
import type { Logger } from 'pino';
import type { ChangeFeed } from '../change-feed.js';
import type { ReadinessCheck } from '../http/app.js';
import type { Scheduler } from './types.js';

/** What the composition root needs from a scheduler backend. */
export interface SchedulerBackend {
  scheduler: Scheduler;
  feed?: ChangeFeed;
  readiness: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

/** Builds the BullMQ backend for `url`. */
export async function redisBackend(url: string, options: { logger: Logger; sweepEveryMs?: number; prefix?: string }): Promise<SchedulerBackend> {
  void url;
  void options;
  throw new Error('REDIS_URL is set but the BullMQ backend is not wired yet');
}
