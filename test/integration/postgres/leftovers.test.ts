/**
 * What a test file leaves behind is removed when it ends, even when a hook timed out half-way: a database whose
 * creation was still running (its suite's `afterAll` had no handle to drop), and the Redis keys of a queue prefix.
 * The file's end is `removeLeftovers()`, which the setup file test/support/remove-leftovers.ts runs after each file;
 * here it is called by hand, mid-creation.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { queuePrefix, TEST_REDIS_URL } from '../../helpers/queue-prefix.js';
import { removeLeftovers } from '../../support/leftovers.js';
import { freshDatabase, PG_ADMIN_URL, withClient } from './fresh-database.js';

const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.quit());

const exists = (name: string) =>
  withClient(
    PG_ADMIN_URL,
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );

describe('test leftovers', () => {
  it('drops a database the test never got a handle to (its creation still running when the file ended)', async () => {
    const names: string[] = [];
    // A beforeAll that timed out: the promise is still pending, nobody will drop what it makes.
    const orphan = freshDatabase({ migrate: true }).then((db) => (names.push(db.name), db));
    await removeLeftovers();
    const db = await orphan;
    expect(names).toEqual([db.name]);
    expect(await exists(db.name)).toBe(0);
    // One the test dropped itself is not dropped twice (and nothing is left registered).
    const kept = await freshDatabase();
    await kept.drop();
    await removeLeftovers();
    expect(await exists(kept.name)).toBe(0);
  });

  it("deletes a queue prefix's keys, and only those", async () => {
    const prefix = queuePrefix();
    const other = `tg-other-${process.pid}-${Date.now()}`;
    await redis.set(`${prefix}:expiry:meta`, '1');
    await redis.hset(`${prefix}:ratelimit:token`, 'n', '1');
    await redis.set(`${other}:kept`, '1');
    try {
      await removeLeftovers();
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
      expect(await redis.get(`${other}:kept`)).toBe('1');
    } finally {
      await redis.del(`${other}:kept`);
    }
  });
});
