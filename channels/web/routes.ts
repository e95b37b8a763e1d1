/**
 * @module channels/web/routes
 * The `/ui` routes: sign-in, the inbox, request pages and their decision forms, the audit page and its CSV export,
 * the change stream and the assets. Mounted on the channel router, which runs before the API's JSON parser, so the
 * forms bring their own urlencoded parser.
 */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { STALE_GROUPS_MESSAGE, type ChannelHost, type DecisionEvent } from '../../src/channel/channel.js';
import type { WebIdentity } from './identity.js';
import { streamExport } from '../../src/http/export.js';
import { InvalidCursorError } from '../../src/requests/cursor.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { APP_CSS, APP_JS } from './assets.js';
import { parseAuditFilters } from './audit-filters.js';
import { readDecisionForm } from './decision-form.js';
import { grantsPage } from './pages/grants.js';
import { ValidationError } from '../../src/api/errors.js';
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
import { auditPage } from './pages/audit.js';
import { INSIGHTS_CSS, INSIGHTS_JS, uplotAssets } from './insights-assets.js';
import { insightsRoutes } from './insights-routes.js';
import { awayRoutes } from './away-routes.js';
import { inboxPage } from './pages/inbox.js';
import { inboxRows, inboxView, waitingRows } from './inbox-views.js';
import { messagePage } from './pages/message.js';
import { rawArgsPage, requestPage } from './pages/request.js';
import { DIFF_STYLESHEET, summarySection } from './pages/summary.js';
import { diffStylesheet } from './diff-assets.js';
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
const AUDIT_PAGE_SIZE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

  router.get('/requests/:id', signedIn, async (req, res) => {
    const found = await findRequest(req, res, context);
    if (!found) return;
    const request = (await gateway.withStandIns?.(found)) ?? found;
    const notice = typeof req.query.notice === 'string' ? req.query.notice : undefined;
    const events = await gateway.events(request.id);
    const grants = gateway.grantOffers?.(events) ?? [];
    const summary = await summarySection(request.summary, request.id);
    sendPage(
      res,
      200,
      requestPage({
        viewer: viewerOf(req, res, context),
        request,
        events,
        now: context.now(),
        notice,
        grants,
        summary,
      }),
    );
  });

  router.get('/requests/:id/raw', signedIn, async (req, res) => {
    const request = await findRequest(req, res, context);
    if (request) sendPage(res, 200, rawArgsPage(viewerOf(req, res, context), request));
  });

  router.post('/requests/:id/decision', signedIn, forms, checked, async (req, res) => {
    const request = await findRequest(req, res, context);
    if (!request) return;
    const viewer = viewerOf(req, res, context);
    const form = readDecisionForm((req.body ?? {}) as Record<string, unknown>, request.toolArgs);
    if (!form.ok) {
      if (form.editText === undefined) {
        sendPage(res, 400, messagePage(viewer, 'Decision not understood', `${form.error}. Nothing was changed.`));
        return;
      }
      // Keep what the approver typed, with the problem next to it.
      const events = await gateway.events(request.id);
      const summary = await summarySection(request.summary, request.id);
      const edit = { text: form.editText, error: form.error };
      sendPage(res, 400, requestPage({ viewer, request, events, now: context.now(), edit, summary }));
      return;
    }
    const outcome = await gateway
      .decide({
        requestId: request.id,
        nonce: form.nonce,
        decision: form.decision,
        reason: form.reason,
        approvedArgs: form.approvedArgs,
        argsSha256: form.argsSha256,
        grant: form.grant,
        ...deciderOf(identityOf(res, context)!),
      })
      .catch((error: unknown) => {
        // A grant the request's rule no longer offers (the policy was reloaded): say so, change nothing.
        if (error instanceof ValidationError)
          return { ok: false as const, code: 'invalid' as const, message: error.message };
        throw error;
      });
    const stale = !outcome.ok && outcome.code === 'not_authorized' && outcome.message === STALE_GROUPS_MESSAGE;
    const notice = outcome.ok
      ? outcome.final
        ? outcome.request.status
        : 'recorded'
      : stale
        ? 'groups_stale'
        : outcome.code;
    res.redirect(303, `/ui/requests/${request.id}?notice=${encodeURIComponent(notice)}`);
  });

  router.use(awayRoutes({ ...context, forms, signedIn, checked }));

  router.get('/grants', signedIn, async (req, res) => {
    const grants = (await gateway.grantAdmin?.list()) ?? [];
    const notice = req.query.notice === 'revoked' || req.query.notice === 'gone' ? req.query.notice : undefined;
    sendPage(res, 200, grantsPage(viewerOf(req, res, context), grants, notice));
  });

  router.post('/grants/:id/revoke', signedIn, forms, checked, async (req, res) => {
    const id = String(req.params.id);
    const revoker = identityOf(res, context)!.account ?? identityOf(res, context)!.label;
    const grant = UUID.test(id) ? await gateway.grantAdmin?.revoke(id.toLowerCase(), revoker) : null;
    if (!grant) {
      sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Grant not found', 'No standing grant has this id.'));
      return;
    }
    res.redirect(303, `/ui/grants?notice=${grant.revokedBy === revoker ? 'revoked' : 'gone'}`);
  });

  router.use(insightsRoutes(context, signedIn));

  router.get('/audit', signedIn, async (req, res) => {
    const filters = parseAuditFilters(req.query as Record<string, unknown>, gateway.decidedBy?.bind(gateway));
    const page = filters.errors.length
      ? { items: [], nextCursor: null }
      : await gateway
          .list({ ...filters.query, limit: AUDIT_PAGE_SIZE, cursor: filters.cursor })
          .catch((error: unknown) => {
            if (error instanceof InvalidCursorError) {
              filters.errors.push({
                field: 'cursor',
                message: 'That page link is not valid any more; start from the first page.',
              });
              return { items: [], nextCursor: null };
            }
            throw error;
          });
    const chainHead = (await gateway.auditHead?.()) ?? null;
    sendPage(
      res,
      filters.errors.length ? 400 : 200,
      auditPage({
        viewer: viewerOf(req, res, context),
        filters,
        items: page.items,
        nextCursor: page.nextCursor,
        chainHead,
      }),
    );
  });

  // Reads only: walks the chain and the requests as `tollgate audit verify` does, and says what it found.
  router.get('/audit/verify', signedIn, async (req, res) => {
    const report = (await gateway.verifyAudit?.()) ?? null;
    const viewer = viewerOf(req, res, context);
    if (!report)
      sendPage(res, 404, messagePage(viewer, 'No audit chain', 'This gateway keeps no hash-chained audit trail.'));
    else if (report.ok)
      sendPage(
        res,
        200,
        messagePage(
          viewer,
          'Audit trail intact',
          `All ${report.events} events are chained as written and every request agrees with its events.`,
        ),
      );
    else sendPage(res, 200, messagePage(viewer, 'Audit trail broken', report.problem ?? 'The chain does not verify.'));
  });

  router.get('/audit/export', signedIn, async (req, res) => {
    const filters = parseAuditFilters(req.query as Record<string, unknown>, gateway.decidedBy?.bind(gateway));
    if (filters.errors.length) {
      sendPage(
        res,
        400,
        messagePage(
          viewerOf(req, res, context),
          'Export not possible',
          filters.errors.map((e) => e.message).join('; '),
        ),
      );
      return;
    }
    const format = req.query.format === 'ndjson' ? 'ndjson' : 'csv';
    await streamExport(res, gateway.exportPages(filters.query, format), format);
  });

  router.use((req, res) => {
    sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Not found', 'There is no page here.'));
  });
  return router;
}

/**
 * Who a web decision comes from: the viewer's account split into channel and user (`web:alice`, `person:alice`,
 * `email:x@example.com`), recorded as made through the web, with the groups the provider vouched for (those still
 * fresh, until when they hold, and the stale ones, so a refusal can say "sign in again"). A viewer with no
 * account (signed in, unknown to the directory) never gets here (`known` turns them away); were one to, they would
 * decide as `unknown:<label>`, which no approver list names.
 */
function deciderOf(
  identity: WebIdentity,
): Pick<DecisionEvent, 'actor' | 'via' | 'groups' | 'groupsUntil' | 'staleGroups'> {
  const account = identity.account ?? `unknown:${identity.label}`;
  const colon = account.indexOf(':');
  const actor = { channel: account.slice(0, colon), userId: account.slice(colon + 1) };
  return {
    actor,
    via: 'web',
    groups: identity.groups,
    ...(identity.groupsUntil ? { groupsUntil: identity.groupsUntil } : {}),
    staleGroups: identity.staleGroups,
  };
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

/** The request named in the path, or null after answering 404. */
async function findRequest(req: Request, res: Response, context: WebRoutesContext) {
  const id = String(req.params.id);
  const request = UUID.test(id) ? await context.gateway.get(id.toLowerCase()) : null;
  if (!request)
    sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Request not found', 'No request has this id.'));
  return request;
}
