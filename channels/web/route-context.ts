/**
 * @module channels/web/route-context
 * What the `/ui` page routers (`request-routes.ts`, `grants-routes.ts`, `audit-routes.ts`) share: the context they
 * are built from, the middleware `routes.ts` builds once for all of them, and the id a path names.
 */
import type { Request, RequestHandler } from 'express';
import type { ChannelHost } from '../../src/channel/channel.js';
import type { GuardContext } from './guard.js';

/** What a page reads: the host, and what the guard needs. */
export interface PageContext extends GuardContext {
  gateway: ChannelHost;
}

/** The middleware of the routes that take a form: its parser, the sign-in guard and the CSRF check. */
export interface FormGuards {
  forms: RequestHandler;
  signedIn: RequestHandler;
  checked: RequestHandler;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The path's `:id` (`/requests/:id`, `/grants/:id/revoke`), lower-cased, or null when it is not a UUID: requests and
 * grants have UUIDs, so anything else is a 404 without a read.
 */
export function pathId(req: Request): string | null {
  const id = String(req.params.id);
  return UUID.test(id) ? id.toLowerCase() : null;
}
