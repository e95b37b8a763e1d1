/**
 * `tollgate serve` child processes with `REDIS_URL` set, for the multi-process tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/tollgate.js', import.meta.url));
const TOKEN = 'bullmq-test-token';

/** A running gateway process. */
export interface RedisGateway {
  url: string;
  process: ChildProcess;
  output(): string;
  api(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  /** Fetches JSON and fails on an unexpected status. */
  json<T = Record<string, unknown>>(path: string, init?: { method?: string; body?: unknown }, status?: number): Promise<T>;
  /** Sends `signal` and waits for the exit; resolves with the exit code (null when killed by the signal). */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Options of {@link startRedisGateway}. */
export interface RedisGatewayOptions {
  /** Extra environment (chat credentials, `TOLLGATE_QUEUE_PREFIX`). */
  env?: Record<string, string>;
  /** Sweep period (`sweep_every_s` in a config file written next to the database). */
  sweepEverySeconds?: number;
}

/** Starts `tollgate serve --port 0 --db <dbPath>` with `REDIS_URL=<redisUrl>`; resolves once it listens. */
export async function startRedisGateway(dbPath: string, redisUrl: string, options: RedisGatewayOptions = {}): Promise<RedisGateway> {
  const args = [BIN, 'serve', '--port', '0', '--db', dbPath];
  if (options.sweepEverySeconds !== undefined) {
    const configPath = `${dbPath}.sweep-${options.sweepEverySeconds}.yaml`;
    writeFileSync(configPath, `sweep_every_s: ${options.sweepEverySeconds}\n`);
    args.push('--config', configPath);
  }
  const env = options.env ?? {};
  const child = spawn(process.execPath, args, {
    env: { ...process.env, REDIS_URL: redisUrl, TOLLGATE_API_TOKENS: TOKEN, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in 60 s:\n${output}`)), 60_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening:\n${output}`));
    });
  });
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${url}${path}`, {
      method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  return {
    url,
    process: child,
    output: () => output,
    api,
    async json<T>(path: string, init: { method?: string; body?: unknown } = {}, status?: number): Promise<T> {
      const response = await api(path, init);
      const body = (await response.json()) as T;
      if (status !== undefined && response.status !== status) throw new Error(`${init.method ?? 'GET'} ${path}: expected ${status}, got ${response.status}: ${JSON.stringify(body)}`);
      return body;
    },
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
