/**
 * @module server
 * The composition root: opens the database, picks the scheduler (BullMQ when `REDIS_URL` is set, in-process
 * otherwise), builds the channels and the gateway, and serves the HTTP API. `tollgate serve` is a thin wrapper.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { channelsFromConfig } from '../channels/index.js';
import type { Channel } from './channel.js';
import type { ChangeFeed } from './change-feed.js';
import type { Clock } from './clock.js';
import type { TollgateConfig } from './config.js';
import { Gateway } from './gateway.js';
import { createApp, type HttpPlugin, type ReadinessCheck } from './http/app.js';
import { integrationsPlugin } from './integrations/plugin.js';
import { applyMigrations, openDatabase } from './requests/database.js';
import { SqliteConfirmationStore } from './requests/sqlite-store.js';
import { parseCallbackAllow } from './callback-target.js';
import { TokenStore } from './tokens/token-store.js';
import { InProcessScheduler } from './scheduler/in-process.js';
import type { Scheduler } from './scheduler/types.js';
import { VERSION } from './version.js';

/** Options of {@link createServer}. */
export interface ServerOptions {
  config: TollgateConfig;
  logger?: Logger;
  clock?: Clock;
  /** Channels to use instead of the ones the configuration enables (tests). */
  channels?: Channel[];
  /** Scheduler and change feed to use instead of the configured ones (tests). */
  scheduler?: Scheduler;
  feed?: ChangeFeed;
  /** Extra HTTP plugins, mounted after the built-in runtime integrations (`/v1/hooks/*`). */
  plugins?: HttpPlugin[];
}

/** A running (or ready to run) tollgate. */
export interface TollgateServer {
  gateway: Gateway;
  config: TollgateConfig;
  http: Server;
  /** Starts listening; resolves with the bound port and base URL. */
  listen(): Promise<{ port: number; url: string }>;
  /** Graceful shutdown: stop accepting, let in-flight requests finish, stop workers, close Redis and the database. */
  close(): Promise<void>;
}

/**
 * Builds a tollgate server from its configuration.
 * @example
 * const server = await createServer({ config: loadConfig({ port: 0, db: './data/tollgate.db' }) });
 * const { url } = await server.listen();
 */
export async function createServer(options: ServerOptions): Promise<TollgateServer> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.logLevel, redact: { paths: ['*.token', '*.secret', '*.authorization', 'req.headers.authorization'], censor: '[redacted]' } });
  const db = openDatabase(config.dbPath);
  applyMigrations(db);
  const store = new SqliteConfirmationStore(db);
  const sweepEveryMs = config.file.sweep_every_s !== undefined ? config.file.sweep_every_s * 1000 : undefined;
  const backend = options.scheduler
    ? { scheduler: options.scheduler, feed: options.feed, readiness: {} as Record<string, ReadinessCheck>, close: async () => {} }
    : await schedulerFor(config, logger, options.clock, sweepEveryMs);
  const channels = options.channels ?? (await channelsFromConfig(config, logger));
  const gateway = new Gateway({
    store,
    scheduler: backend.scheduler,
    feed: options.feed ?? backend.feed,
    channels,
    clock: options.clock,
    logger,
    allowSelfApproval: config.file.allow_self_approval ?? false,
    callbackSecret: config.callbackSecret ?? undefined,
    callbackAllow: parseCallbackAllow(config.env.TOLLGATE_CALLBACK_ALLOW),
    defaults: {
      timeoutS: config.file.defaults?.timeout_s,
      onTimeout: config.file.defaults?.on_timeout,
      options: config.file.defaults?.options,
      channels: config.file.defaults?.channels,
    },
  });
  await gateway.start();
  for (const channel of channels) await channel.start?.(gateway);
  const { app, metrics } = createApp({ gateway, apiTokens: config.apiTokens, tokens: new TokenStore(db.sqlite), logger, channels, plugins: [integrationsPlugin(), ...(options.plugins ?? [])], readiness: backend.readiness, version: VERSION });
  const http = createHttpServer(app);
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  // Long-polls last up to 55 s; node's default request timeout (300 s) is fine, but never let one socket live forever.
  http.requestTimeout = 120_000;

  let closing: Promise<void> | null = null;
  return {
    gateway,
    config,
    http,
    listen: () =>
      new Promise((resolve, reject) => {
        http.once('error', reject);
        // A deep accept backlog: thousands of agents reconnecting at once must queue, not be reset.
        http.listen({ port: config.port, host: config.host, backlog: 4096 }, () => {
          const { port } = http.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ port, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}` });
        });
      }),
    close: () =>
      (closing ??= (async () => {
        const drained = new Promise<void>((resolve) => http.close(() => resolve()));
        // Waiting long-polls answer with the row as it is; the client loops.
        await gateway.stop();
        // Channels end their own long-lived connections (web inbox streams, Socket Mode) before we wait for drain.
        for (const channel of channels) await channel.stop?.().catch((e: unknown) => logger.warn({ err: e }, 'channel stop failed'));
        http.closeIdleConnections();
        await Promise.race([drained, new Promise((r) => setTimeout(r, 5000).unref())]);
        http.closeAllConnections();
        metrics.close();
        await gateway.feed.close();
        await backend.close();
        await store.close();
      })()),
  };
}

/** The scheduler and change feed for the configuration: BullMQ + Redis pub/sub with `REDIS_URL`, else in-process. */
async function schedulerFor(config: TollgateConfig, logger: Logger, clock: Clock | undefined, sweepEveryMs: number | undefined) {
  if (!config.redisUrl) {
    return { scheduler: new InProcessScheduler({ clock, logger, sweepEveryMs }) as Scheduler, feed: undefined, readiness: {}, close: async () => {} };
  }
  const { bullmqBackend } = await import('./scheduler/bullmq-backend.js');
  return bullmqBackend(config.redisUrl, { logger, sweepEveryMs, clock, prefix: config.env.TOLLGATE_QUEUE_PREFIX });
}
