/**
 * A Redis key prefix of its own for the gateways of one test (`TOLLGATE_QUEUE_PREFIX`, `tg-<uuid>`): their queues,
 * pub/sub channel and rate limits stay apart from every other test's, and its keys (`<prefix>:*`) are deleted when the
 * test file ends, after its child gateways were stopped (test/support/leftovers.ts).
 */
import { randomUUID } from 'node:crypto';
import { removeAtEnd } from '../support/leftovers.js';

/** The Redis the suite uses. */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/** Deletes every key under `prefix:` (SCAN, then UNLINK in batches). */
export async function deletePrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** A new `tg-<uuid>` prefix whose keys are deleted when the test file ends. */
export function queuePrefix(): string {
  const prefix = `tg-${randomUUID()}`;
  removeAtEnd(() => deletePrefix(prefix));
  return prefix;
}
