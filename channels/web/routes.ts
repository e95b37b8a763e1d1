/**
 * @module channels/web/routes
 * The `/ui` routes: the assets, sign-in, the inbox and the change stream here; the other pages mounted from their own
 * routers: a request's pages and decision form (`request-routes.ts`), away (`away-routes.ts`), standing grants
 * (`grants-routes.ts`), insights (`insights-routes.ts`) and the audit pages with their export (`audit-routes.ts`).
 * Mounted on the channel router, which runs before the API's JSON parser, so the forms bring their own urlencoded
 * parser.
 */
import express, { Router, type RequestHandler } from 'express';
import type { ChannelHost } from '../../src/channel/channel.js';
import type { WebIdentity } from './identity.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { APP_CSS, APP_JS } from './assets.js';
import { auditRoutes } from './audit-routes.js';
import { grantsRoutes } from './grants-routes.js';
import {
  identityOf,
  loadSession,
  requireForm,
  requireUser,
  securityHeaders,
  sendPage,
  viewerOf,
  type GuardContext,
} from './guard.js';
import { loginRoutes } from './login-routes.js';
import type { OidcClient } from './oidc/client.js';
import { oidcRoutes } from './oidc/routes.js';
import { SignInLimiter, type SignInLimits } from './sign-in-limiter.js';
import { INSIGHTS_CSS, INSIGHTS_JS, uplotAssets } from './insights-assets.js';
import { insightsRoutes } from './insights-routes.js';
import { awayRoutes } from './away-routes.js';
import { inboxPage } from './pages/inbox.js';
import { inboxRows, inboxView, waitingRows } from './inbox-views.js';
import { messagePage } from './pages/message.js';
import { DIFF_STYLESHEET } from './pages/summary.js';
import { diffStylesheet } from './diff-assets.js';
import { requestRoutes } from './request-routes.js';
import type { ChangeStreams } from './stream.js';
import type { PushService } from '../../src/push/service.js';
import { pushRoutes } from './push-routes.js';

/** Everything the routes are built from. */
export interface WebRoutesContext extends GuardContext {
  gateway: ChannelHost;
  streams: ChangeStreams;
  now: () => number;
  /** Where sign-in failures and throttling are logged (an audit line each). */
  logger?: { warn(obj: Record<string, unknown>, msg: string): void };
  signInLimits?: SignInLimits;
  /** Sign-in through an OpenID provider, when configured. */
  oidcClient?: OidcClient | null;
  /** Web Push, once the composition root handed it over (absent or null: the push routes answer 404). */
  push?: () => PushService | null;
}

const INBOX_LIMIT = 100;

/** Builds the router mounted at `/ui`. */
export function webRoutes(context: WebRoutesContext): Router {
  const { gateway } = context;
  const router = Router();
  const forms = express.urlencoded({ extended: false, limit: '300kb', parameterLimit: 20 });
  const signedIn = requireUser(context);
  const checked = requireForm(context);
  router.use(securityHeaders);

  router.get('/assets/app.js', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.type('text/javascript; charset=utf-8').send(APP_JS);
  });
  router.get('/assets/app.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.type('text/css; charset=utf-8').send(APP_CSS);
  });
  // The insights page's charts: uPlot from its npm package, and the page's own script and styles.
  const asset = (path: string, type: string, body: () => string) =>
    router.get(path, (_req, res) => {
      res.setHeader('cache-control', 'public, max-age=300');
      res.type(type).send(body());
    });
  asset('/assets/uplot.js', 'text/javascript; charset=utf-8', () => uplotAssets().js);
  asset('/assets/uplot.css', 'text/css; charset=utf-8', () => uplotAssets().css);
  asset('/assets/insights.js', 'text/javascript; charset=utf-8', () => INSIGHTS_JS);
  asset('/assets/insights.css', 'text/css; charset=utf-8', () => INSIGHTS_CSS);
  // The request page's diffs: diff2html's stylesheet from its npm package, read on first use.
  asset(`/assets/${DIFF_STYLESHEET}`, 'text/css; charset=utf-8', diffStylesheet);

  router.use(loadSession(context));
  router.use(pushRoutes({ gateway, guard: context, push: context.push ?? (() => null), signedIn, checked }));
  const limiter = new SignInLimiter(context.now, context.signInLimits);
  const audit = (line: Record<string, unknown>) => (context.logger ?? gateway.logger)?.warn(line, 'web sign-in');
  router.use(loginRoutes(context, forms, limiter, audit, context.oidcClient ?? null));
  if (context.oidcClient)
    router.use(
      oidcRoutes({ ...context, client: context.oidcClient, directory: () => context.directory?.() ?? null, audit }),
    );

  // Signed in through the provider but unknown to the directory: nothing here is theirs to see (the inbox says why).
  const known: RequestHandler = (req, res, next) => {
    if (identityOf(res, context)?.account !== null) return next();
    sendPage(
      res,
      403,
      messagePage(
        viewerOf(req, res, context),
        'Not in the people directory',
        unknownPersonText(identityOf(res, context)!),
      ),
    );
  };
  for (const path of ['/requests', '/audit', '/grants', '/insights']) router.use(path, signedIn, known);

  router.get('/', signedIn, async (req, res) => {
    const identity = identityOf(res, context)!;
    if (identity.account === null) {
      sendPage(res, 200, messagePage(viewerOf(req, res, context), 'Nothing to decide', unknownPersonText(identity)));
      return;
    }
    const view = inboxView(req.query.view, identity);
    const waiting = await waitingRows(gateway, identity, INBOX_LIMIT);
    const rows = view === 'waiting' ? waiting : await inboxRows(gateway, identity, view, INBOX_LIMIT);
    const pending = rows.items.filter((r) => r.status === 'pending');
    sendPage(
      res,
      200,
      inboxPage({
        viewer: viewerOf(req, res, context),
        view,
        ...rows,
        now: context.now(),
        nudged: await nudgedRequests(gateway, pending),
        waiting: { count: waiting.items.length, more: waiting.more },
      }),
    );
  });

  router.get('/stream', signedIn, (req, res) => {
    context.streams.serve(gateway, req, res);
  });

  router.use(requestRoutes({ ...context, forms, signedIn, checked }));
  router.use(awayRoutes({ ...context, forms, signedIn, checked }));
  router.use(grantsRoutes({ ...context, forms, signedIn, checked }));
  router.use(insightsRoutes(context, signedIn));
  router.use(auditRoutes(context, signedIn));

  router.use((req, res) => {
    sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Not found', 'There is no page here.'));
  });
  return router;
}

/** What someone the directory does not know is told. */
function unknownPersonText(identity: WebIdentity): string {
  return `You are signed in, but the people directory does not know ${identity.email ?? identity.label}, so nothing here is yours to see or decide. Ask the gateway operator to add your address to people: in the configuration.`;
}

/** The requests a policy reminded or escalated (the latest of the two), so the inbox can single them out. */
async function nudgedRequests(
  gateway: ChannelHost,
  requests: readonly ConfirmationRequest[],
): Promise<Map<string, 'reminded' | 'escalated'>> {
  const nudged = new Map<string, 'reminded' | 'escalated'>();
  await Promise.all(
    requests.map(async (request) => {
      const last = (await gateway.events(request.id))
        .filter((e) => e.type === 'reminded' || e.type === 'escalated')
        .at(-1);
      if (last) nudged.set(request.id, last.type as 'reminded' | 'escalated');
    }),
  );
  return nudged;
}
