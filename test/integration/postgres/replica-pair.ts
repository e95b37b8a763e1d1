/**
 * Two `tollgate serve` processes (replicas) on one fresh PostgreSQL database and one Redis, started before the suite's
 * tests and killed after them: the set-up every multi-replica suite shares.
 */
import { afterAll, beforeAll } from 'vitest';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { queuePrefix } from '../../helpers/queue-prefix.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

/** The replicas and their database, once `beforeAll` ran. */
export interface ReplicaPair {
  database: FreshDatabase;
  a: ChildGateway;
  b: ChildGateway;
  /**
   * Starts one more replica of the same deployment, killed after the suite with the others: for a test that kills a
   * replica, so the tests after it (in any order) still find `a` and `b` running.
   */
  another(): Promise<ChildGateway>;
}

/** The Redis settings that make processes one deployment: the same queue prefix, new for each suite. */
export function sharedRedisEnv(): Record<string, string> {
  return { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: queuePrefix() };
}

/**
 * Registers the suite's hooks and returns the pair, filled in by `beforeAll`.
 * @example const pair = replicaPair(); it('…', async () => { await pair.a.api('/v1/requests', …); });
 */
export function replicaPair(env: Record<string, string> = {}): ReplicaPair {
  const extra: ChildGateway[] = [];
  const shared = { ...sharedRedisEnv(), ...env };
  const pair = {
    another: async () => {
      const replica = await startChildGateway(pair.database.url, shared);
      extra.push(replica);
      return replica;
    },
  } as ReplicaPair;
  beforeAll(async () => {
    pair.database = await freshDatabase({ migrate: true });
    [pair.a, pair.b] = await Promise.all([
      startChildGateway(pair.database.url, shared),
      startChildGateway(pair.database.url, shared),
    ]);
  });
  afterAll(async () => {
    await Promise.all([pair.a?.kill('SIGKILL'), pair.b?.kill('SIGKILL'), ...extra.map((r) => r.kill('SIGKILL'))]);
    await pair.database?.drop();
  });
  return pair;
}
