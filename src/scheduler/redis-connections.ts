/**
 * @module scheduler/redis-connections
 * ioredis connections for the BullMQ scheduler and the Redis change feed. BullMQ's ESM build cannot load ioredis
 * from plain options, so tollgate always hands it ready-made ioredis instances, built here with the settings each
 * use needs.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { describeError } from '../api/errors.js';

/** Where Redis is: a `redis://` / `rediss://` URL, or ioredis options. */
export type RedisConnectionOptions = string | RedisOptions;

/** Reconnect quickly and forever: Redis coming back is the normal end of an outage. */
function retryStrategy(times: number): number {
  return Math.min(100 * times, 2000);
}

/** Builds an ioredis client from a URL or options, with `overrides` on top. */
export function createRedis(connection: RedisConnectionOptions, overrides: RedisOptions): Redis {
  const options: RedisOptions = { retryStrategy, ...overrides };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...connection, ...options });
}

/**
 * A client for commands that must not hang while Redis is away: no offline queue (commands fail at once when
 * disconnected) and a per-command timeout. Commands issued in one turn of the event loop leave in one write
 * (auto-pipelining): 10,000 expiries publish 10,000 changes, and a socket write each was a quarter of that second's
 * profile on BullMQ.
 */
export function createFailFastRedis(connection: RedisConnectionOptions, commandTimeoutMs: number, name: string): Redis {
  return createRedis(connection, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectionName: name,
    enableAutoPipelining: true,
  });
}

/** A client for BullMQ workers (BullMQ requires `maxRetriesPerRequest: null` for blocking connections). */
export function createWorkerRedis(connection: RedisConnectionOptions, name: string): Redis {
  return createRedis(connection, { maxRetriesPerRequest: null, connectionName: name });
}

/** Closes a client politely when connected, at once otherwise; never throws. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // Fall through to a hard disconnect.
    }
  }
  client.disconnect();
}

/** Rejects when `promise` takes longer than `ms` (the operation itself may still finish later). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether an error means "Redis is not reachable right now" (worth keeping the operation for later). */
export function isConnectionError(error: unknown): boolean {
  const message = describeError(error);
  return /stream isn't writeable|connection is closed|ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EHOSTUNREACH|timed out|max ?retries|socket/i.test(
    message,
  );
}
