/**
 * @module channels/web/push-routes
 * The inbox as an installable app, and Web Push: the manifest, icon and service worker; `GET /ui/push/key`;
 * `POST|DELETE /ui/push/subscriptions` for the signed-in person (same origin and CSRF token, in the `x-csrf-token`
 * header, as the inbox's forms); `POST /ui/push/act`, where a notification's Approve lands. That one needs no session:
 * the single-use action token is the credential (a lock screen has no cookie to offer), and the push service checks
 * it before anything changes.
 */
import express, { Router, type RequestHandler } from 'express';
import type { ChannelHost } from '../../src/channel/channel.js';
import { ForbiddenError, NotFoundError } from '../../src/api/errors.js';
import type { PushService } from '../../src/push/service.js';
import { identityOf, type GuardContext } from './guard.js';
import { ICON_SVG, MANIFEST, PUSH_CLIENT_JS, SERVICE_WORKER_JS } from './pwa.js';

/** What the push routes need of the inbox's routes. */
export interface PushRoutesContext {
  gateway: ChannelHost;
  guard: GuardContext;
  /** Null until the composition root hands one over (`WebChannel.usePush`): the routes answer 404 meanwhile. */
  push: () => PushService | null;
  signedIn: RequestHandler;
  checked: RequestHandler;
}

/** Builds the routes above, mounted inside `/ui` after the session is read. */
export function pushRoutes(context: PushRoutesContext): Router {
  const router = Router();
  const json = express.json({ limit: '8kb' });
  const asset =
    (type: string, text: string, maxAgeS: number): RequestHandler =>
    (_req, res) => {
      res.setHeader('cache-control', `public, max-age=${maxAgeS}`);
      res.type(type).send(text);
    };
  router.get('/manifest.webmanifest', asset('application/manifest+json', MANIFEST, 3600));
  router.get('/icon.svg', asset('image/svg+xml', ICON_SVG, 86_400));
  // Browsers re-check a service worker at least daily; no-cache makes every check see a new version at once.
  // Scope `/ui` (not the script's own `/ui/`), so the inbox page `/ui` is controlled too.
  router.get(
    '/sw.js',
    (_req, res, next) => {
      res.setHeader('service-worker-allowed', '/ui');
      next();
    },
    asset('text/javascript; charset=utf-8', SERVICE_WORKER_JS, 0),
  );
  router.get('/assets/push.js', asset('text/javascript; charset=utf-8', PUSH_CLIENT_JS, 300));

  const enabled: RequestHandler = (_req, _res, next) => {
    if (!context.push()) throw new NotFoundError('Web Push is off on this gateway');
    next();
  };
  router.get('/push/key', enabled, (_req, res) => {
    res.json({ public_key: context.push()!.publicKey() });
  });
  // The person and account are the session's: a subscription can only ever be one's own.
  router.post('/push/subscriptions', enabled, context.signedIn, json, context.checked, async (req, res) => {
    const identity = identityOf(res, context.guard);
    if (!identity?.account || !identity.person)
      throw new ForbiddenError(
        'you are signed in, but the people directory does not know you: there is nobody to notify',
      );
    const saved = await context.push()!.subscribe(identity.person, identity.account, req.body);
    res.status(201).json({ id: saved.id, endpoint: saved.endpoint, person: saved.person });
  });
  router.delete('/push/subscriptions', enabled, context.signedIn, json, context.checked, async (req, res) => {
    const identity = identityOf(res, context.guard);
    const removed = identity?.person ? await context.push()!.unsubscribe(identity.person, req.body) : false;
    res.status(removed ? 204 : 404).end();
  });
  router.post('/push/act', enabled, json, async (req, res) => {
    const result = await context.push()!.act(context.gateway, req.body);
    res.status(result.status).json(result.body);
  });
  return router;
}
