/**
 * @module server/handle
 * What `createServer` (src/server.ts) hands back once everything is built: the parts tools and tests read, `listen()`
 * and the one graceful `close()`, which stops the parts in the order that lets in-flight work finish.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import type { TollgateConfig } from '../config.js';
import type { EventStream } from '../events/stream.js';
import type { Gateway } from '../gateway/gateway.js';
import type { Retention } from '../history/retention.js';
import type { TollgateApp } from '../http/app.js';
import type { ChangeFeed } from '../lifecycle/change-feed.js';
import type { EmailResolver } from '../people/email-resolution.js';
import type { PeopleSource } from '../people/source.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { Tracing } from '../telemetry/sdk.js';

/** A running (or ready to run) tollgate. */
export interface TollgateServer {
  gateway: Gateway;
  /** The store the gateway runs on: for tools and tests that inspect rows directly (the gateway never exposes it). */
  store: ConfirmationStore;
  config: TollgateConfig;
  /** The people directory in force; a config reload replaces it (`watchPolicy`). */
  people: PeopleSource;
  /** Looks up the Slack/Feishu accounts of people given only an email (`refresh()` runs it now). */
  resolver: EmailResolver;
  http: Server;
  /** Configured retention's background prune (`TOLLGATE_RETENTION_DAYS`), or null when history is kept. */
  retention: Retention | null;
  /** The express app behind the lean routes of the hot calls (`http/lean-routes`): for tests that list its routes. */
  app: Express;
  /** Starts listening; resolves with the bound port and base URL. */
  listen(): Promise<{ port: number; url: string }>;
  /** Graceful shutdown: stop accepting, let in-flight requests finish, stop workers, close Redis and the database. */
  close(): Promise<void>;
}

/** What {@link serverHandle} serves, reads and closes. */
export interface ServerParts extends Omit<TollgateServer, 'listen' | 'close'> {
  channels: Channel[];
  logger: Logger;
  events: EventStream;
  /** The express app's metrics and its `close` (the rate limits' Redis connection). */
  web: Pick<TollgateApp, 'metrics' | 'close'>;
  feed: ChangeFeed;
  /** The scheduler backend (BullMQ's queues and Redis connections, or nothing to close). */
  backend: { close(): Promise<void> };
  /** The database. */
  stores: { close(): Promise<void> };
  /** The audit trail's integrator: it places what is pending and signs a checkpoint after the gateway stops. */
  trail: { stop(): Promise<void> };
  tracing: Tracing | null;
  /** Told the base URL once listening (notifications link to it when no public URL is configured). */
  onListening(url: string): void;
}

/** The server's handle: its parts, `listen()` and a `close()` that runs once however often it is called. */
export function serverHandle(parts: ServerParts): TollgateServer {
  const {
    http,
    config,
    resolver,
    retention,
    events,
    gateway,
    channels,
    logger,
    web,
    feed,
    backend,
    stores,
    tracing,
    trail,
  } = parts;
  let closing: Promise<void> | null = null;
  return {
    gateway,
    store: parts.store,
    config,
    people: parts.people,
    resolver,
    retention,
    http,
    app: parts.app,
    listen: () =>
      new Promise((resolve, reject) => {
        http.once('error', reject);
        // A deep accept backlog: thousands of agents reconnecting at once must queue, not be reset.
        http.listen({ port: config.port, host: config.host, backlog: 4096 }, () => {
          const { port } = http.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          const listening = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
          parts.onListening(listening);
          resolve({ port, url: listening });
        });
      }),
    close: () =>
      (closing ??= (async () => {
        const drained = new Promise<void>((resolve) => http.close(() => resolve()));
        // Waiting long-polls answer with the row as it is; the client loops.
        resolver.stop();
        await retention?.stop();
        await events.stop();
        await gateway.stop();
        await trail.stop();
        // Channels end their own long-lived connections (web inbox streams, Socket Mode) before we wait for drain.
        for (const channel of channels)
          await channel.stop?.().catch((e: unknown) => logger.warn({ err: e }, 'channel stop failed'));
        http.closeIdleConnections();
        await Promise.race([drained, new Promise((r) => setTimeout(r, 5000).unref())]);
        http.closeAllConnections();
        web.metrics.close();
        await web.close();
        await feed.close();
        await backend.close();
        await stores.close();
        // Last, so the spans of the shutdown itself are flushed too.
        await tracing?.shutdown();
      })()),
  };
}
