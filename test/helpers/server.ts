/**
 * In-process test gateway: a real SQLite file in a temp dir, the real HTTP stack on 127.0.0.1 port 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Channel } from '../../src/channel/channel.js';
import type { ChangeFeed } from '../../src/lifecycle/change-feed.js';
import type { Clock } from '../../src/utils/clock.js';
import { loadConfig, type ConfigFile } from '../../src/config.js';
import type { HttpPlugin } from '../../src/http/app.js';
import type { Scheduler } from '../../src/scheduler/types.js';
import { createServer, type TollgateServer } from '../../src/server.js';

/** A running test gateway. */
export interface TestServer {
  url: string;
  token: string;
  server: TollgateServer;
  gateway: TollgateServer['gateway'];
  /** The store under the gateway, for assertions on rows, cards and events. */
  store: TollgateServer['store'];
  dbPath: string;
  /** fetch against the gateway with the bearer token and JSON body. */
  api(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  channels?: Channel[];
  clock?: Clock;
  scheduler?: Scheduler;
  feed?: ChangeFeed;
  plugins?: HttpPlugin[];
  file?: ConfigFile;
  env?: Record<string, string>;
  /** Reuse a database file (restart tests), or a PostgreSQL URL. */
  dbPath?: string;
  /** A policy file's YAML: written to the server's temp dir and named by `TOLLGATE_CONFIG`. */
  policy?: string;
}

/** Starts a gateway for one test. Call `close()` in afterEach. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = options.dbPath && options.policy === undefined ? null : mkdtempSync(join(tmpdir(), 'tollgate-test-'));
  const dbPath = options.dbPath ?? join(dir!, 'tollgate.db');
  const token = 'test-token';
  const env: Record<string, string> = { TOLLGATE_API_TOKENS: token, ...options.env };
  if (options.policy !== undefined) {
    env.TOLLGATE_CONFIG = join(dir!, 'tollgate.yaml');
    writeFileSync(env.TOLLGATE_CONFIG, options.policy);
  }
  const config = loadConfig({ port: 0, db: dbPath }, env);
  if (options.file) config.file = options.file;
  const server = await createServer({
    config,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    clock: options.clock,
    channels: options.channels,
    scheduler: options.scheduler,
    feed: options.feed,
    plugins: options.plugins,
  });
  const { url } = await server.listen();
  return {
    url,
    token,
    server,
    gateway: server.gateway,
    store: server.store,
    dbPath,
    api(path, init = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...init.headers };
      if (init.body !== undefined) headers['content-type'] ??= 'application/json';
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
        headers,
        body:
          init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
      });
    },
    async close() {
      await server.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
