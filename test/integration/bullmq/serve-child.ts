/**
 * A child `tollgate serve` on the Redis backend, for the multi-process tests: `createServer` with the BullMQ scheduler
 * and Redis change feed from `bullmqBackend` (what the composition root builds from `REDIS_URL`). Prints the same
 * "listening on" line as the CLI and shuts down gracefully on SIGTERM.
 * Usage: node --import tsx serve-child.ts <db> (env REDIS_URL, TOLLGATE_QUEUE_PREFIX, SWEEP_EVERY_MS, TOLLGATE_API_TOKENS).
 */
import { pino } from 'pino';
import { loadConfig } from '../../../src/config.js';
import { bullmqBackend } from '../../../src/scheduler/bullmq-backend.js';
import { createServer } from '../../../src/server.js';

const config = loadConfig({ port: 0, db: process.argv[2] });
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
const backend = bullmqBackend(config.redisUrl!, { logger, prefix: process.env.TOLLGATE_QUEUE_PREFIX, sweepEveryMs: Number(process.env.SWEEP_EVERY_MS ?? 60_000) });
const server = await createServer({ config, logger, scheduler: backend.scheduler, feed: backend.feed });
const { url } = await server.listen();
process.stdout.write(`tollgate listening on ${url} (scheduler ${server.gateway.scheduler.name})\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
