/**
 * @module channels/web/request-routes
 * A request's pages under `/ui`: `GET /requests/:id` (the request, its events, its summary and its decision form),
 * `GET /requests/:id/raw` (its arguments as sent) and `POST /requests/:id/decision` (the form, CSRF-checked, decided
 * as the signed-in viewer, then back to the page with a notice saying what happened).
 */
import { Router, type Request, type Response } from 'express';
import { ValidationError } from '../../src/api/errors.js';
import { STALE_GROUPS_MESSAGE, type DecisionEvent } from '../../src/channel/channel.js';
import { readDecisionForm } from './decision-form.js';
import { identityOf, sendPage, viewerOf } from './guard.js';
import type { WebIdentity } from './identity.js';
import { messagePage } from './pages/message.js';
import { rawArgsPage, requestPage } from './pages/request.js';
import { summarySection } from './pages/summary.js';
import { pathId, type FormGuards, type PageContext } from './route-context.js';

/** What the request pages need: the host, the guard, the clock and the form middleware. */
export interface RequestRoutesContext extends PageContext, FormGuards {
  now: () => number;
}

/** Builds the router answering `/requests/:id…` (mounted at `/ui`). */
export function requestRoutes(context: RequestRoutesContext): Router {
  const { gateway, forms, signedIn, checked } = context;
  const router = Router();

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

  return router;
}

/**
 * Who a web decision comes from: the viewer's account split into channel and user (`web:alice`, `person:alice`,
 * `email:x@example.com`), recorded as made through the web, with the groups the provider vouched for (those still
 * fresh, until when they hold, and the stale ones, so a refusal can say "sign in again"). A viewer with no
 * account (signed in, unknown to the directory) never gets here (`known` in `routes.ts` turns them away); were one
 * to, they would decide as `unknown:<label>`, which no approver list names.
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

/** The request named in the path, or null after answering 404. */
async function findRequest(req: Request, res: Response, context: RequestRoutesContext) {
  const id = pathId(req);
  const request = id ? await context.gateway.get(id) : null;
  if (!request)
    sendPage(res, 404, messagePage(viewerOf(req, res, context), 'Request not found', 'No request has this id.'));
  return request;
}
