/**
 * `tollgate serve` child processes with `REDIS_URL` set, for the multi-process tests: the shared child-gateway
 * helper plus a JSON helper that fails on an unexpected status.
 */
import { writeFileSync } from 'node:fs';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';

/** A running gateway process. */
export interface RedisGateway extends ChildGateway {
  /** Fetches JSON and fails on an unexpected status. */
  json<T = Record<string, unknown>>(
    path: string,
    init?: { method?: string; body?: unknown },
    status?: number,
  ): Promise<T>;
}

/** Options of {@link startRedisGateway}. */
export interface RedisGatewayOptions {
  /** Extra environment (chat credentials, `TOLLGATE_QUEUE_PREFIX`). */
  env?: Record<string, string>;
  /** Sweep period (`sweep_every_s` in a config file written next to the database). */
  sweepEverySeconds?: number;
}

/** Starts `tollgate serve --port 0 --db <dbPath>` with `REDIS_URL=<redisUrl>`; resolves once it listens. */
export async function startRedisGateway(
  dbPath: string,
  redisUrl: string,
  options: RedisGatewayOptions = {},
): Promise<RedisGateway> {
  const args: string[] = [];
  if (options.sweepEverySeconds !== undefined) {
    const configPath = `${dbPath}.sweep-${options.sweepEverySeconds}.yaml`;
    writeFileSync(configPath, `sweep_every_s: ${options.sweepEverySeconds}\n`);
    args.push('--config', configPath);
  }
  const child = await startChildGateway(dbPath, { REDIS_URL: redisUrl, ...options.env }, args);
  return {
    ...child,
    async json<T>(path: string, init: { method?: string; body?: unknown } = {}, status?: number): Promise<T> {
      const response = await child.api(path, init);
      const body = (await response.json()) as T;
      if (status !== undefined && response.status !== status)
        throw new Error(
          `${init.method ?? 'GET'} ${path}: expected ${status}, got ${response.status}: ${JSON.stringify(body)}`,
        );
      return body;
    },
  };
}
