/**
 * @module server/http
 * The HTTP side `createServer` (src/server.ts) serves: the express app (the API, the built-in runtime integrations,
 * the signing keys' JWKS, any extra plugins, `/readyz`'s checks, rate limits) behind a node:http server with its
 * timeouts and connection limits. It does not listen: the server's handle does (`handle.ts`).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import type { TollgateConfig } from '../config.js';
import type { Gateway } from '../gateway/gateway.js';
import { createApp, type HttpPlugin, type ReadinessCheck, type TollgateApp } from '../http/app.js';
import { applyConnectionLimits, type ConnectionLimits } from '../http/connection-limits.js';
import { jwksPlugin } from '../http/jwks-route.js';
import { integrationsPlugin } from '../integrations/plugin.js';
import type { PushService } from '../push/service.js';
import type { SigningKeys } from '../signing/keys.js';
import type { OpenStores } from '../stores/open-store.js';
import { withTraceContext } from '../telemetry/http-context.js';
import { VERSION } from '../version.js';

/** What the HTTP side serves. */
export interface HttpParts {
  config: TollgateConfig;
  gateway: Gateway;
  stores: OpenStores;
  logger: Logger;
  channels: Channel[];
  signingKeys: SigningKeys;
  /** Mounted after the built-in runtime integrations and the JWKS. */
  plugins: readonly HttpPlugin[];
  /** `/readyz`'s checks besides the database and the scheduler. */
  readiness: Record<string, ReadinessCheck>;
  push: PushService;
  /** Read from the environment before anything opened (`connectionLimitsFromEnv`). */
  connectionLimits: ConnectionLimits;
}

/** Builds the app and the node:http server that runs it; see the module comment. */
export function httpServerFor(parts: HttpParts): { http: Server } & TollgateApp {
  const { config, stores } = parts;
  const rateLimits = { ...config.rateLimits, redisUrl: config.redisUrl, keyPrefix: config.env.TOLLGATE_QUEUE_PREFIX };
  const app = createApp({
    gateway: parts.gateway,
    apiTokens: config.apiTokens,
    tokens: stores.tokens,
    logger: parts.logger,
    channels: parts.channels,
    plugins: [
      integrationsPlugin({ marks: stores.marks, publicUrl: config.publicUrl }),
      jwksPlugin(parts.signingKeys),
      ...parts.plugins,
    ],
    readiness: parts.readiness,
    version: VERSION,
    rateLimits,
    push: parts.push,
  });
  // A caller's `traceparent` makes its span the parent of the spans its request causes (the create span first).
  const http = createHttpServer(withTraceContext(app.handler));
  http.keepAliveTimeout = 65_000;
  // Long-polls last up to 55 s; node's default request timeout (300 s) is fine, but never let one socket live forever.
  http.requestTimeout = 120_000;
  // Total and per-address socket caps and a short headers timeout, so half-sent headers cannot starve /healthz.
  applyConnectionLimits(http, parts.connectionLimits);
  return { http, ...app };
}
