/**
 * @module http/app
 * The express application: channel callback routes first (they read raw bodies to check signatures), then `/v1`
 * behind JSON parsing and bearer auth, then operations endpoints, then the one problem+json error handler.
 */
import express, { Router, type Express, type RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import { NotFoundError, describeError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import type { TokenStore } from '../tokens/token-store.js';
import { authenticator, bearerAuth, requireScope } from './auth.js';
import { tokensRouter } from './tokens-routes.js';
import { grantsRouter } from './grants-routes.js';
import { auditRouter } from './audit-routes.js';
import { insightsRouter, policySimulateRouter, SIMULATE_PATH, YAML_TYPES } from './insights-routes.js';
import { peopleRouter } from './people-routes.js';
import { awayRouter } from './away-routes.js';
import { eventsRouter } from './events-routes.js';
import { inboxRouter } from './inbox-routes.js';
import { pushRouter } from './push-routes.js';
import type { PushService } from '../push/service.js';
import { isLoginLinkSource, loginLinksRouter } from './login-links-route.js';
import { createMetrics, type GatewayMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { problemHandler, sendProblem } from './problem.js';
import { TokenRateLimits, type TokenRateLimitOptions } from './rate-limit.js';
import { requestsRouter } from './requests-routes.js';
import { leanRoutes, type LeanPost } from './lean-routes.js';
import { requestLogging } from './request-log.js';
import { jsonBody } from './json-body.js';

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
  /**
   * POST routes (by exact path) also answered on the lean path for plain JSON bodies, skipping express's router
   * (`http/lean-routes`); the routes `mount` adds must answer the same through the same handler.
   */
  leanPosts?(context: HttpPluginContext): Record<string, LeanPost>;
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
  /** Per-token rate limits (default: generous budgets, counted in memory); `redisUrl` shares them across replicas. */
  rateLimits?: Omit<TokenRateLimitOptions, 'clock' | 'logger'>;
  version?: string;
  /** Web Push (`/v1/push/subscriptions` for tokens bound to a person); absent: no such routes. */
  push?: PushService;
}

/** The app plus its metrics (closed on shutdown). */
export interface TollgateApp {
  app: Express;
  /** What the HTTP server runs: the lean routes of the hot calls (`http/lean-routes`), else the app. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  metrics: GatewayMetrics;
  /** Releases what the app holds beyond metrics (the rate limits' Redis connection). */
  close(): Promise<void>;
}

/** Builds the express app. */
export function createApp(options: AppOptions): TollgateApp {
  const { gateway, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // Answers describe live state (a long-poll's row changes under it): no ETags, as on the lean routes.
  app.set('etag', false);
  app.use(requestLogging(logger));

  const channelRoutes = Router();
  for (const channel of options.channels ?? []) channel.mount?.(channelRoutes, gateway);
  app.use(channelRoutes);

  const json = jsonBody(options.bodyLimit ?? '256kb');
  const identify = authenticator({
    adminTokens: options.apiTokens,
    tokens: options.tokens,
    now: () => gateway.clock.now(),
  });
  const authenticate = bearerAuth(identify);
  const limits = new TokenRateLimits({ ...options.rateLimits, clock: gateway.clock, logger });
  const limitCalls = limits.limit('requests');
  // Runtime hook routes file requests and wait for them: they need `request:create`, and count like any /v1 call.
  const auth: RequestHandler = Router().use(authenticate, limitCalls, requireScope('request:create'));
  const context: HttpPluginContext = { gateway, auth, json, logger };
  for (const plugin of options.plugins ?? []) plugin.mount(app, context);

  // Decisions count against their own, smaller budget too (before the handler, so a refused one records nothing).
  const v1 = Router()
    .post('/requests/:id/decision', limits.limit('decisions'))
    .use('/requests', requestsRouter(gateway));
  if (options.tokens)
    v1.use(
      '/tokens',
      tokensRouter(
        options.tokens,
        () => gateway.clock.now(),
        () => gateway.directory(),
      ),
    );
  v1.use('/grants', grantsRouter(gateway));
  v1.use(peopleRouter(gateway));
  v1.use(awayRouter(gateway));
  v1.use('/inbox', inboxRouter(gateway));
  if (options.push) v1.use('/push', pushRouter(options.push, gateway));
  if (gateway.stream) v1.use('/events', eventsRouter(gateway.stream));
  if (gateway.audit) v1.use('/audit', auditRouter(gateway.audit));
  if (gateway.insights)
    v1.use('/insights', insightsRouter(gateway.insights)).use(policySimulateRouter(gateway.insights));
  const web = options.channels?.find((c) => c.name === 'web');
  if (isLoginLinkSource(web)) v1.use('/web/login-links', loginLinksRouter(web));
  app.use('/v1', authenticate, limitCalls, json, requireJsonBody, v1);

  const metrics = createMetrics(gateway, { defaultMetrics: true });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, ReadinessCheck> = {
      ...gateway.readiness(),
      ...options.readiness,
    };
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(
          async ([name, check]) =>
            [name, await check().catch((e: unknown) => ({ ready: false, detail: describeError(e) }))] as const,
        ),
      ),
    );
    const ready = Object.values(results).every((r) => r.ready);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  // Built on the first request, not at start: turning the zod schemas into JSON Schema costs every start ~15 ms of
  // CPU, and most gateways are never asked for the document.
  let openapi: Record<string, unknown> | undefined;
  app.get('/openapi.json', (_req, res) => {
    res.json((openapi ??= openApiDocument(options.version ?? '0.0.0')));
  });
  app.use((req, _res, next) => next(new NotFoundError(`no route ${req.method} ${req.path}`)));
  app.use(problemHandler(logger));
  const posts = new Map((options.plugins ?? []).flatMap((plugin) => Object.entries(plugin.leanPosts?.(context) ?? {})));
  const lean = leanRoutes({ gateway, authenticate: identify, limits, json, logger, posts });
  return { app, handler: (req, res) => lean(req, res) || app(req, res), metrics, close: () => limits.close() };
}

/**
 * POST bodies on `/v1` must be JSON (or empty); anything else is a 415, not a silently empty body. The one exception
 * is a candidate policy for `POST /v1/policy/simulate`, sent as the YAML file it is.
 */
const requireJsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
  if (req.method === 'POST' && req.path === SIMULATE_PATH && req.is(YAML_TYPES)) {
    next();
    return;
  }
  if (req.method === 'POST' && hasBody && !req.is(['application/json', 'application/*+json'])) {
    sendProblem(res, 415, 'send the body as application/json', { code: 'unsupported_media_type' });
    return;
  }
  next();
};
