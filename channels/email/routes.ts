/**
 * @module channels/email/routes
 * `GET /channels/email/a/:token` and `POST` to the same path. A GET never decides: mail scanners (Safe Links,
 * Mimecast, Proofpoint) fetch every link in a mail, some with a headless browser, so a GET only shows the
 * confirmation page. The page's form posts back with a CSRF token bound to a cookie the GET set and to the link; the
 * post verifies the link again, spends it (one decision per recipient and request) and hands the decision to the
 * gateway. A forged link is a 401 and a log line, an expired or used one a 410, a form from elsewhere a 403: each a
 * page in plain words, and none changes anything.
 */
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import type { ChannelHost, DecideOutcome } from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';
import { parseCookies, serializeCookie } from '../web/cookies.js';
import type { SafeHtml } from '../web/html.js';
import type { LinkClaims, LinkSigner } from './links.js';
import { confirmPage, messagePage, verdictPage } from './pages.js';
import { actedByMail, type UsedLinks } from './used-links.js';

/** The path of a link, before its token. */
export const EMAIL_LINK_PATH = '/channels/email/a/';
/** The cookie the confirmation form's CSRF token is bound to. */
export const FORM_COOKIE = 'tollgate_email_form';
/** Longest reason accepted with a denial (as on the web inbox). */
export const MAX_REASON_CHARS = 2000;

/** What the routes need. */
export interface EmailRouteDeps {
  host: ChannelHost;
  signer: LinkSigner;
  used: UsedLinks;
  /** Origin of the public URL: accepted on form posts besides the address the request came to. */
  publicOrigin: string;
  logger: Logger;
}

// The pages load nothing; their only style is inline, and their only form posts to this origin.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function send(res: Response, status: number, page: SafeHtml): void {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  // The token is in the address: never send it on to another site (same-origin keeps the form's Origin header).
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
  res.status(status).type('text/html; charset=utf-8').send(page.value);
}

/** Adds the link routes to `router`. */
export function mountEmailRoutes(router: Router, deps: EmailRouteDeps): void {
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });
  router.get(`${EMAIL_LINK_PATH}:token`, (req, res, next) => showLink(deps, req, res).catch(next));
  router.post(`${EMAIL_LINK_PATH}:token`, form, (req, res, next) => postLink(deps, req, res).catch(next));
}

/** The link's claims, or the page saying why there are none (already sent). */
function claimsOf(deps: EmailRouteDeps, req: Request, res: Response): LinkClaims | null {
  const token = String(req.params.token ?? '');
  const checked = deps.signer.verify(token, deps.host.now());
  if (checked.ok) return checked.claims;
  if (checked.problem === 'expired') {
    send(
      res,
      410,
      messagePage(
        'This link has expired',
        'The request this link belongs to has reached its deadline, so the link no longer decides anything. Nothing was changed.',
      ),
    );
    return null;
  }
  deps.logger.warn({ ip: req.ip, method: req.method, problem: 'bad link signature' }, 'email link rejected');
  send(
    res,
    401,
    messagePage(
      'This link is not valid',
      'This link was not issued by this gateway, or it was changed after it was sent. Nothing was changed. Use the link exactly as it appears in the mail.',
    ),
  );
  return null;
}

const account = (claims: LinkClaims) => `email:${claims.recipient}`;

async function usedBefore(deps: EmailRouteDeps, claims: LinkClaims): Promise<boolean> {
  if (await deps.used.spent(claims.requestId, claims.recipient, deps.host.now())) return true;
  return actedByMail(await deps.host.events(claims.requestId), account(claims));
}

const USED = [
  'This link was already used',
  'A decision was already made with the links of this mail, so this one changes nothing.',
] as const;

async function showLink(deps: EmailRouteDeps, req: Request, res: Response): Promise<void> {
  const claims = claimsOf(deps, req, res);
  if (!claims) return;
  const request = await deps.host.get(claims.requestId);
  if (!request)
    return send(
      res,
      404,
      messagePage(
        'Request not found',
        'The request this link belongs to does not exist any more. Nothing was changed.',
      ),
    );
  if (request.status !== 'pending')
    return send(
      res,
      200,
      messagePage('This request is already decided', 'Nothing is left to decide; this link changes nothing.', request),
    );
  if (await usedBefore(deps, claims)) return send(res, 410, messagePage(...USED, request));
  const cookies = parseCookies(req.get('cookie'));
  let cookie = cookies.get(FORM_COOKIE);
  if (!cookie || !/^[A-Za-z0-9_-]{22,64}$/.test(cookie)) {
    cookie = randomBytes(18).toString('base64url');
    const secure = req.secure || deps.publicOrigin.startsWith('https:');
    res.append(
      'set-cookie',
      serializeCookie(FORM_COOKIE, cookie, { path: '/channels/email', sameSite: 'Strict', maxAgeS: 86400, secure }),
    );
  }
  const label =
    (claims.action === 'approve' ? request.options[0] : request.options[1]) ??
    (claims.action === 'approve' ? 'Approve' : 'Deny');
  send(
    res,
    200,
    confirmPage(request, {
      action: claims.action,
      label,
      csrf: deps.signer.csrfToken(cookie, String(req.params.token)),
      recipient: claims.recipient,
      listed: deps.host.mayDecide?.(request, account(claims)) ?? true,
    }),
  );
}

/** Whether the browser says this post came from another site. */
function crossSite(req: Request, publicOrigin: string): boolean {
  if (req.get('sec-fetch-site') === 'cross-site') return true;
  const origin = req.get('origin');
  return origin !== undefined && origin !== `${req.protocol}://${req.get('host')}` && origin !== publicOrigin;
}

async function postLink(deps: EmailRouteDeps, req: Request, res: Response): Promise<void> {
  const claims = claimsOf(deps, req, res);
  if (!claims) return;
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (
    crossSite(req, deps.publicOrigin) ||
    !deps.signer.csrfMatches(parseCookies(req.get('cookie')).get(FORM_COOKIE), String(req.params.token), body._csrf)
  ) {
    return send(
      res,
      403,
      messagePage(
        'Form rejected',
        'This form did not come from the page the link opened in this browser, so nothing was changed. Open the link from the mail again and press the button there.',
      ),
    );
  }
  const now = deps.host.now();
  if (
    (await usedBefore(deps, claims)) ||
    !(await deps.used.spend(claims.requestId, claims.recipient, claims.expiresAt, now))
  ) {
    return send(res, 410, messagePage(...USED, await deps.host.get(claims.requestId)));
  }
  const reason =
    claims.action === 'deny' && typeof body.reason === 'string'
      ? body.reason.trim().slice(0, MAX_REASON_CHARS) || undefined
      : undefined;
  let outcome: DecideOutcome;
  try {
    outcome = await deps.host.decide({
      requestId: claims.requestId,
      nonce: claims.nonce,
      decision: claims.action,
      reason,
      actor: { channel: 'email', userId: claims.recipient },
    });
  } catch (error) {
    // Our failure, not the approver's: give the link back so pressing the button again can work.
    await deps.used.release(claims.requestId, claims.recipient, deps.host.now()).catch(() => undefined);
    deps.logger.error({ requestId: claims.requestId, err: describeError(error) }, 'decision from email failed');
    return send(
      res,
      500,
      messagePage(
        'Something went wrong',
        'Your decision could not be recorded and nothing changed. Please press the button again in a moment.',
      ),
    );
  }
  if (!outcome.ok)
    return send(
      res,
      409,
      messagePage('Nothing changed', outcome.message, outcome.request ?? (await deps.host.get(claims.requestId))),
    );
  send(res, 200, verdictPage(outcome.request, outcome.final));
}
