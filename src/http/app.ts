/**
 * @module http/app
 * The express application: channel callback routes first (they read raw bodies to check signatures), then `/v1`
 * behind JSON parsing and bearer auth, then operations endpoints, then the one problem+json error handler.
 */
import express, { Router, type Express, type RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Channel } from '../channel.js';
import { NotFoundError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import type { TokenStore } from '../tokens/token-store.js';
import { bearerAuth, requireScope } from './auth.js';
import { tokensRouter } from './tokens-routes.js';
import { createMetrics, type GatewayMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { problemHandler, sendProblem } from './problem.js';
import { requestsRouter } from './requests-routes.js';

/** What an {@link HttpPlugin} gets to mount its routes. */
export interface HttpPluginContext {
  gateway: Gateway;
  /** Bearer-token middleware for routes that runtimes call. */
  auth: RequestHandler;
  /** The JSON body parser with the app's size limit. */
  json: RequestHandler;
  logger: Logger;
}

/** Extra routes (the runtime integrations, the web UI) added without the core knowing them. */
export interface HttpPlugin {
  name: string;
  mount(app: Express, context: HttpPluginContext): void;
}

/** A readiness check for `/readyz`: resolves with `{ready, detail}`. */
export type ReadinessCheck = () => Promise<{ ready: boolean; detail?: string }>;

/** Options of {@link createApp}. */
export interface AppOptions {
  gateway: Gateway;
  /** Admin tokens (`TOLLGATE_API_TOKENS`, or the one `serve` generated). */
  apiTokens: readonly string[];
  /** Scoped tokens created over `POST /v1/tokens`; without it only the admin tokens work. */
  tokens?: TokenStore;
  logger: Logger;
  channels?: readonly Channel[];
  plugins?: readonly HttpPlugin[];
  /** Named checks for `/readyz` besides the database and the scheduler. */
  readiness?: Record<string, ReadinessCheck>;
  /** JSON body limit (default 256kb). */
  bodyLimit?: string;
  version?: string;
}

/** The app plus its metrics (closed on shutdown). */
export interface TollgateApp {
  app: Express;
  metrics: GatewayMetrics;
}

/** Builds the express app. */
export function createApp(options: AppOptions): TollgateApp {
  const { gateway, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLogging(logger));

  const channelRoutes = Router();
  for (const channel of options.channels ?? []) channel.mount?.(channelRoutes, gateway);
  app.use(channelRoutes);

  const json = express.json({ limit: options.bodyLimit ?? '256kb', strict: true, type: ['application/json', 'application/*+json'] });
  const authenticate = bearerAuth({ adminTokens: options.apiTokens, tokens: options.tokens, now: () => gateway.clock.now() });
  const mayFile = requireScope('request:create');
  // Runtime hook routes file requests and wait for them: they need `request:create`.
  const auth: RequestHandler = (req, res, next) => authenticate(req, res, (error?: unknown) => (error ? next(error) : mayFile(req, res, next)));
  const context: HttpPluginContext = { gateway, auth, json, logger };
  for (const plugin of options.plugins ?? []) plugin.mount(app, context);

  const v1 = Router().use('/requests', requestsRouter(gateway));
  if (options.tokens) v1.use('/tokens', tokensRouter(options.tokens, () => gateway.clock.now()));
  app.use('/v1', authenticate, json, requireJsonBody, v1);

  const metrics = createMetrics(gateway, { defaultMetrics: true });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, ReadinessCheck> = {
      database: async () => gateway.store.ping().then(() => ({ ready: true })),
      scheduler: () => gateway.scheduler.health(),
      ...(gateway.feed.health ? { change_feed: () => gateway.feed.health!() } : {}),
      ...options.readiness,
    };
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]) => [name, await check().catch((e: unknown) => ({ ready: false, detail: e instanceof Error ? e.message : String(e) }))] as const),
      ),
    );
    const ready = Object.values(results).every((r) => r.ready);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  const openapi = openApiDocument(options.version ?? '0.0.0');
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use((req, _res, next) => next(new NotFoundError(`no route ${req.method} ${req.path}`)));
  app.use(problemHandler(logger));
  return { app, metrics };
}

/** POST bodies on `/v1` must be JSON (or empty); anything else is a 415, not a silently empty body. */
const requireJsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (req.method === 'POST' && hasBody && !req.is(['application/json', 'application/*+json'])) {
    sendProblem(res, 415, 'send the body as application/json', { code: 'unsupported_media_type' });
    return;
  }
  next();
};

/** Gives each request an id (or keeps a sane `X-Request-Id`) and logs it once done. Never logs headers or bodies. */
function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('x-request-id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug({ reqId: requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'http');
    });
    next();
  };
}
