/**
 * @module server
 * The composition root: opens the database, picks the scheduler (BullMQ when `REDIS_URL` is set, in-process
 * otherwise), builds the channels and the gateway, and serves the HTTP API. `tollgate serve` is a thin wrapper.
 * Its parts are in src/server/: the scheduler's choice, the audit trail, the gateway with its people and event
 * stream, the background work started after it, the HTTP side, and the server's handle (`listen`, the ordered
 * `close`).
 */
import { pino, type Logger } from 'pino';
import { channelsFromConfig } from '../channels/index.js';
import type { Channel } from './channel/channel.js';
import { LocalChangeFeed, type ChangeFeed } from './lifecycle/change-feed.js';
import { systemClock, type Clock } from './utils/clock.js';
import type { TollgateConfig } from './config.js';
import { PolicyGate } from './policy/gate.js';
import { resolutionTtlMs } from './people/email-resolution.js';
import { anchorIntervalMs, loadSinks } from './events/config.js';
import type { HttpPlugin, ReadinessCheck } from './http/app.js';
import { connectionLimitsFromEnv } from './http/connection-limits.js';
import { openStores } from './stores/open-store.js';
import { parseOutboundAllow } from './utils/outbound.js';
import { readSigningSettings } from './signing/keys.js';
import { startSigningKeys } from './signing/startup.js';
import { databaseDialect } from './stores/database-url.js';
import { maxDelayFromEnv } from './audit/integrator.js';
import { startAuditTrail } from './server/audit-trail.js';
import { anchorSignerOf, VerdictSigner, verdictTtlFromEnv } from './signing/verdict.js';
import { Retention } from './history/retention.js';
import { pruneStoreOf } from './stores/prune-store-of.js';
import type { Scheduler } from './scheduler/types.js';
import { startTracing } from './telemetry/sdk.js';
import { setUpPush } from './push/setup.js';
import { isWebChannel } from '../channels/web/index.js';
import { serverHandle, type TollgateServer } from './server/handle.js';
import { schedulerFor } from './server/scheduler.js';
import { gatewayFor } from './server/gateway.js';
import { httpServerFor } from './server/http.js';
import { startBackground } from './server/background.js';

export type { TollgateServer } from './server/handle.js';

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

/**
 * Builds a tollgate server from its configuration.
 * @example
 * const server = await createServer({ config: loadConfig({ port: 0, db: './data/tollgate.db' }) });
 * const { url } = await server.listen();
 */
export async function createServer(options: ServerOptions): Promise<TollgateServer> {
  const { config } = options;
  // Read before anything opens, so a bad value stops the start without leaving a pool behind.
  const connectionLimits = connectionLimitsFromEnv(config.env);
  const signing = await readSigningSettings(config.env, {
    sqliteFile: databaseDialect(config.dbPath) === 'sqlite' ? config.dbPath : undefined,
  });
  const verdictTtlS = verdictTtlFromEnv(config.env);
  const lookupTtlMs = resolutionTtlMs(config.env);
  const callbackAllow = parseOutboundAllow(config.env.TOLLGATE_OUTBOUND_ALLOW, config.env.TOLLGATE_CALLBACK_ALLOW);
  const anchorEveryMs = anchorIntervalMs(config.env);
  const maxDelayMs = maxDelayFromEnv(config.env);
  const sinks = loadSinks(config.file.events, config.configPath ?? 'the config file', callbackAllow, config.env);
  const logger =
    options.logger ??
    pino({
      level: config.logLevel,
      redact: { paths: ['*.token', '*.secret', '*.authorization', 'req.headers.authorization'], censor: '[redacted]' },
    });
  // A path is SQLite, a postgres:// URL PostgreSQL (waited for, bounded, and migrated); any other scheme: an error.
  const stores = await openStores(config.dbPath, {
    env: config.env,
    logger,
    replica: { sharedScheduler: Boolean(config.redisUrl || options.scheduler) },
    backgroundCheckpoints: true,
  });
  const store = stores.store;
  // The OpenTelemetry SDK only when OTEL_* variables ask for traces (loaded then, never otherwise); metrics stay Prometheus.
  const tracing = await startTracing(config.env, logger).catch(async (error: unknown) => {
    await stores.close().catch(() => undefined);
    throw error;
  });
  // A start-up failure after this point must close the database too: an open pool would keep the process alive.
  const closeOnFailure = async <T>(step: Promise<T>): Promise<T> => {
    try {
      return await step;
    } catch (error) {
      await stores.close().catch(() => undefined);
      await tracing?.shutdown();
      throw error;
    }
  };
  // Zero-config replicas: without TOLLGATE_WEB_SECRET, web sessions are signed with a key generated once and kept in
  // the database, so every replica (and this one after a restart) accepts the sessions of the others.
  const webSecret = config.env.TOLLGATE_WEB_SECRET || (await closeOnFailure(stores.secrets.get('web_session')));
  // Signed verdicts: the key is loaded now, before anything signs; where it lives (a setting, a file, or the database,
  // where a database writer can forge) is logged and stays in /readyz.
  const { keys: signingKeys, readiness: signingReadiness } = await closeOnFailure(
    startSigningKeys(signing, stores.secrets, logger),
  );
  const verdicts = new VerdictSigner(signingKeys, { ttlS: verdictTtlS });
  // Every write is witnessed from here on (receipts, tokens), and events are placed after commit (`server/audit-trail`).
  const trail = await closeOnFailure(
    startAuditTrail({
      stores,
      keys: signingKeys,
      ttlS: verdictTtlS,
      clock: options.clock ?? systemClock,
      maxDelayMs,
      logger,
    }),
  );
  const sweepEveryMs = config.file.sweep_every_s !== undefined ? config.file.sweep_every_s * 1000 : undefined;
  const backend = options.scheduler
    ? {
        scheduler: options.scheduler,
        feed: options.feed,
        readiness: {} as Record<string, ReadinessCheck>,
        close: async () => {},
      }
    : await closeOnFailure(schedulerFor(config, logger, options.clock, sweepEveryMs));
  const configured =
    options.channels ??
    (await closeOnFailure(
      channelsFromConfig(config, logger, stores.marks, {
        webSecret,
        secrets: stores.secrets,
        signOuts: stores.signOuts,
        database: { sqlite: stores.sqlite, pool: stores.postgres?.pool },
      }),
    ));
  // Web Push: keys from the database (every replica the same), the push channel beside the others, routes in the inbox.
  let listening: string | null = null;
  const push = await closeOnFailure(
    setUpPush({
      secrets: stores.secrets,
      marks: stores.marks ?? stores.signOuts,
      subscriptions: stores.pushSubscriptions,
      env: config.env,
      publicUrl: config.publicUrl,
      outboundAllow: callbackAllow,
      baseUrl: () => config.publicUrl ?? listening ?? `http://${config.host}:${config.port}`,
      now: () => (options.clock ?? systemClock).now(),
      logger: logger.child({ component: 'push' }),
    }),
  );
  for (const channel of configured) if (isWebChannel(channel)) channel.usePush(push.service);
  const channels = configured.some((c) => c.name === 'push') ? configured : [...configured, push.channel];
  const feed = options.feed ?? backend.feed ?? new LocalChangeFeed();
  // A rule sending cards to a channel that is not enabled stops the start, naming the rule.
  const policy = await closeOnFailure(
    (async () =>
      new PolicyGate(
        config.policy,
        stores.grants ?? null,
        channels.map((c) => c.name),
      ))(),
  );
  const clock = options.clock ?? systemClock;
  const { gateway, people, events } = gatewayFor({
    config,
    stores,
    channels,
    scheduler: backend.scheduler,
    feed,
    policy,
    clock,
    logger,
    sinks,
    callbackAllow,
    maxDelayMs,
    trail,
    verdicts,
    signingKeys,
  });
  await closeOnFailure(gateway.start());
  for (const channel of channels) await channel.start?.(gateway);
  const resolver = startBackground({
    gateway,
    people,
    channels,
    stores,
    events,
    trail,
    clock,
    logger,
    lookupTtlMs,
    anchorEveryMs,
  });
  // Configured retention: one replica at a time prunes old decided requests in short batches (`history/retention`).
  const retention = config.retentionDays
    ? new Retention(
        {
          store: await closeOnFailure(pruneStoreOf(stores)),
          exclusive: (fn) => stores.events.exclusive('retention', fn),
          signer: () => anchorSignerOf(signingKeys),
          clock,
          logger: logger.child({ component: 'retention' }),
        },
        { days: config.retentionDays },
      )
    : null;
  retention?.start();
  const {
    http,
    app,
    metrics,
    close: closeApp,
  } = httpServerFor({
    config,
    gateway,
    stores,
    logger,
    channels,
    signingKeys,
    plugins: options.plugins ?? [],
    readiness: {
      ...backend.readiness,
      ...events.readiness(),
      signing: signingReadiness,
      'audit integrator': () => trail.readiness(),
    },
    push: push.service,
    connectionLimits,
  });

  return serverHandle({
    gateway,
    store,
    config,
    people,
    resolver,
    retention,
    http,
    app,
    channels,
    logger,
    events,
    web: { metrics, close: closeApp },
    feed,
    backend,
    stores,
    trail,
    tracing,
    onListening: (url) => (listening = url),
  });
}
