/**
 * @module http/lean-routes
 * The three calls every gated tool call makes — file a request, long-poll it, decide it — and the plugins' hot POST
 * routes (the Claude Code hook, see {@link LeanPost}), answered on node's own request and response, before express
 * sees them. They run the same steps as the express app (request id and log
 * line, bearer auth, the per-token limits, the JSON body parser, scopes, the route functions of `requests-routes`,
 * problem+json), in the same order, so the answer is the same either way; what they skip is express's per-request
 * router state, which a parked long-poll would otherwise hold for up to 55 s (about 15 KB of heap each, measured).
 *
 * Anything else, and any variant these do not take on (HEAD, a trailing slash, a body that is not plain JSON), goes
 * on to express, which answers it the same way through the same functions.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Gateway } from '../gateway/gateway.js';
import type { Principal, Scope } from '../tokens/scopes.js';
import { checkScope, type Authenticator } from './auth.js';
import { sendError } from './problem.js';
import type { TokenRateLimits } from './rate-limit.js';
import {
  CREATE_SCOPES,
  DECIDE_SCOPES,
  READ_SCOPES,
  createRequest,
  decideRequest,
  readRequest,
  sendJson,
  type JsonReply,
} from './requests-routes.js';
import { tagRequest } from './request-log.js';

/** What the lean routes share with the express app. */
export interface LeanRouteDeps {
  gateway: Gateway;
  authenticate: Authenticator;
  limits: TokenRateLimits;
  /** The app's JSON body parser (same limit, same errors). */
  json: RequestHandler;
  logger: Logger;
  /** Plugins' POST routes by exact path (`HttpPlugin.leanPosts`), e.g. `/v1/hooks/claude-code`. */
  posts?: ReadonlyMap<string, LeanPost>;
}

/**
 * A plugin's POST route answered here for plain JSON bodies (express answers the rest, through the same `handle`):
 * the caller is authenticated, counted against `requests` and scope-checked before its body is read, in the order of
 * the plugins' express middleware (`HttpPluginContext.auth`, then `json`).
 */
export interface LeanPost {
  /** Any one of these scopes lets the caller in. */
  scopes: readonly Scope[];
  /** The answer, or null when it was sent already (or the caller went away). `query` is node's querystring, as express's. */
  handle(
    principal: Principal,
    body: unknown,
    query: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<JsonReply | null>;
}

/** Takes a request it answers and returns true, or returns false and leaves it to the express app. */
export type LeanRoutes = (req: IncomingMessage, res: ServerResponse) => boolean;

const ITEM = /^\/v1\/requests\/([0-9a-f-]{36})(\/decision)?$/i;
// Bodies the lean routes parse themselves: JSON, not compressed. Others go to express (415, inflate) unchanged.
const PLAIN_JSON = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Builds the lean routes of an app. */
export function leanRoutes(deps: LeanRouteDeps): LeanRoutes {
  const { gateway, authenticate, limits, logger } = deps;
  const parseBody = (req: IncomingMessage, res: ServerResponse) =>
    new Promise<unknown>((resolve, reject) =>
      deps.json(req as never, res as never, (error?: unknown) =>
        error ? reject(error) : resolve((req as { body?: unknown }).body),
      ),
    );

  /** What a rate-limit warning names of a call. */
  const where = (req: IncomingMessage, res: ServerResponse, path: string) => ({
    method: req.method,
    path,
    reqId: res.getHeader('x-request-id'),
  });

  /** Auth, then the `requests` budget every /v1 call counts against. */
  const caller = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<Principal> => {
    const principal = await authenticate(req.headers.authorization);
    await limits.check('requests', principal.name, where(req, res, path));
    return principal;
  };

  const run = (req: IncomingMessage, res: ServerResponse, path: string, route: () => Promise<JsonReply | null>) => {
    tagRequest(req, res, logger, path);
    route().then(
      (reply) => {
        if (reply && !res.destroyed) sendJson(res, reply);
      },
      (error: unknown) => sendError(logger, error, req, res),
    );
    return true;
  };

  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (req.method === 'GET') {
      const item = ITEM.exec(path);
      if (!item || item[2]) return false;
      return run(req, res, path, async () => {
        const principal = await caller(req, res, path);
        checkScope(principal, READ_SCOPES);
        // express 5's default ("simple") query parser is node's querystring too.
        return readRequest(gateway, principal, item[1]!, q === -1 ? {} : parseQuery(url.slice(q + 1)), res);
      });
    }
    if (req.method !== 'POST' || req.headers['content-encoding'] || !PLAIN_JSON.test(req.headers['content-type'] ?? ''))
      return false;
    const post = deps.posts?.get(path);
    if (post) {
      return run(req, res, path, async () => {
        const principal = await caller(req, res, path);
        checkScope(principal, post.scopes);
        const body = await parseBody(req, res);
        return post.handle(principal, body, q === -1 ? {} : parseQuery(url.slice(q + 1)), res);
      });
    }
    if (path === '/v1/requests') {
      return run(req, res, path, async () => {
        const principal = await caller(req, res, path);
        const body = await parseBody(req, res);
        checkScope(principal, CREATE_SCOPES);
        return createRequest(gateway, principal, body);
      });
    }
    const item = ITEM.exec(path);
    if (!item?.[2]) return false;
    return run(req, res, path, async () => {
      const principal = await caller(req, res, path);
      const body = await parseBody(req, res);
      await limits.check('decisions', principal.name, where(req, res, path));
      checkScope(principal, DECIDE_SCOPES);
      return decideRequest(gateway, principal, item[1]!, body);
    });
  };
}
