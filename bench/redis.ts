/**
 * @module bench/redis
 * The Redis the BullMQ figures use: `REDIS_URL`, or 127.0.0.1:6379. Each run uses its own queue prefix and deletes
 * its keys after every scenario and at the end.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** A reachable Redis with a private prefix. */
export interface BenchRedis {
  env: { REDIS_URL: string; TOLLGATE_QUEUE_PREFIX: string };
  /** Deletes every key under the prefix; resolves with how many. */
  clean(): Promise<number>;
  close(): Promise<void>;
}

/** Connects to Redis, or resolves null when none answers within 2 s. */
export async function redisForBench(log: (line: string) => void): Promise<BenchRedis | null> {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    log(`no Redis at ${url}: ${error instanceof Error ? error.message : String(error)}`);
    redis.disconnect();
    return null;
  }
  const prefix = `tollgate-bench-${randomBytes(4).toString('hex')}`;
  const clean = async () => {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  };
  return {
    env: { REDIS_URL: url, TOLLGATE_QUEUE_PREFIX: prefix },
    clean,
    async close() {
      await clean();
      await redis.quit();
    },
  };
}
