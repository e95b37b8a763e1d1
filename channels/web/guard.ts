/**
 * @module channels/web/guard
 * The web pages' request guards: security headers, reading the session cookie, turning anonymous visitors away,
 * and checking every state-changing form (same origin, then the CSRF token).
 */
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Directory } from '../../src/people/types.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import type { WebAuth } from './auth.js';
import { identify, type WebIdentity } from './identity.js';
import type { SafeHtml } from './html.js';
import { messagePage } from './pages/message.js';
import type { Viewer } from './pages/layout.js';
import { parseCookies, serializeCookie } from './cookies.js';
import { PRE_SESSION_COOKIE, SESSION_COOKIE, type Session, type SessionSigner } from './session.js';

/** What the guards need. */
export interface GuardContext {
  signer: SessionSigner;
  auth: WebAuth;
  /** Origin of the configured public URL, also accepted on form posts (behind a proxy that rewrites Host). */
  publicOrigin: string | null;
  /**
   * Whether an account (with the groups a provider vouched for) is among a request's approvers, by person (the
   * gateway's {@link ChannelHost.mayDecide}).
   */
  mayDecide?(request: ConfirmationRequest, account: string, groups?: readonly string[]): boolean;
  /** The people directory in force (the host's), to resolve who a session is; none: accounts only. */
  directory?(): Directory | null;
  /**
   * Set when sign-in through an OpenID provider is on: such sessions are accepted only then. `groupsMaxAgeS`: how long
   * the groups claim of a sign-in counts (`web.oidc.groups_max_age_s`).
   */
  oidc?: { autoPeople: boolean; groupsMaxAgeS: number } | null;
  /** The gateway's clock (ms), which ages the groups a sign-in brought. */
  now?(): number;
}

// Pages load only their own script and stylesheet; nothing may frame them; form posts stay on this origin.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; manifest-src 'self'";

/** Headers on every `/ui` response: no caching of pages with requests on them, no framing, no sniffing. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on form posts, defeating the origin check.
  res.setHeader('referrer-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
  next();
};

/** Sends a rendered page. */
export function sendPage(res: Response, status: number, page: SafeHtml): void {
  res.status(status).type('text/html; charset=utf-8').send(page.value);
}

/** The signed-in session of this request, or null. */
export function sessionOf(res: Response): Session | null {
  return (res.locals.webSession as Session | undefined) ?? null;
}

/** Whether cookies must be `Secure`: on https, directly or through the configured public URL. */
export function secureCookies(req: Request, context: GuardContext): boolean {
  return req.secure || context.publicOrigin?.startsWith('https:') === true;
}

/** Reads the session cookie into `res.locals.webSession` (a user removed from the configuration is signed out). */
export function loadSession(context: GuardContext): RequestHandler {
  // Async: a sign-out on another replica is read from the database (PostgreSQL); express 5 forwards a rejection.
  return async (req, res, next) => {
    const session = await context.signer.check(parseCookies(req.get('cookie')).get(SESSION_COOKIE));
    // A provider's session is good while sign-in through it is on; a local user's while the user is configured.
    const valid = session && (session.data ? Boolean(context.oidc) : context.auth.knows(session.user));
    res.locals.webSession = valid ? session : null;
    next();
  };
}

/** Who is looking and the CSRF token for their forms; anonymous visitors get a pre-session cookie for the login form. */
export function viewerOf(req: Request, res: Response, context: GuardContext): Viewer {
  const session = sessionOf(res);
  const identity = identityOf(res, context);
  if (session && identity) {
    const { account, groups } = identity;
    const mayDecide = (r: ConfirmationRequest) =>
      account !== null && (context.mayDecide ? context.mayDecide(r, account, groups) : listedAsWritten(r, account));
    return { user: identity.label, identity, csrf: context.signer.csrfToken(session.id), mayDecide };
  }
  let pre = parseCookies(req.get('cookie')).get(PRE_SESSION_COOKIE);
  if (!pre || !/^[A-Za-z0-9_-]{22,64}$/.test(pre)) {
    pre = randomBytes(18).toString('base64url');
    res.append(
      'set-cookie',
      serializeCookie(PRE_SESSION_COOKIE, pre, { secure: secureCookies(req, context), maxAgeS: 3600 }),
    );
  }
  return { user: null, identity: null, csrf: context.signer.csrfToken(`pre|${pre}`), mayDecide: () => false };
}

/** Who the signed-in session is, against the directory in force (resolved once per request); null when signed out. */
export function identityOf(res: Response, context: GuardContext): WebIdentity | null {
  const session = sessionOf(res);
  if (!session) return null;
  const cached = res.locals.webIdentity as WebIdentity | undefined;
  if (cached) return cached;
  const freshness = context.oidc
    ? { now: context.now?.() ?? Date.now(), maxAgeMs: context.oidc.groupsMaxAgeS * 1000 }
    : undefined;
  const identity = identify(session, context.directory?.() ?? null, context.oidc?.autoPeople ?? false, freshness);
  res.locals.webIdentity = identity;
  return identity;
}

/** Without a directory: the account itself, or its channel's wildcard, is on the list (or the list is empty). */
function listedAsWritten(request: ConfirmationRequest, account: string): boolean {
  return (
    request.approvers.length === 0 ||
    request.approvers.some((a) => a === account || a === `${account.slice(0, account.indexOf(':'))}:*`)
  );
}

/** `/ui/...` paths only, so `next=` cannot send anyone elsewhere. */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || !/^\/ui([/?]|$)/.test(value) || /[\\\s]|\/\/|%2f%2f/i.test(value)) return '/ui';
  return value.slice(0, 500);
}

/** Anonymous visitors see no request: page loads go to the sign-in page, anything else gets 401. */
export function requireUser(context: GuardContext): RequestHandler {
  return (req, res, next) => {
    if (sessionOf(res)) return next();
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.redirect(303, `/ui/login?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    sendPage(
      res,
      401,
      messagePage(
        viewerOf(req, res, context),
        'Sign in first',
        'Your session has ended. Sign in again, then repeat what you did.',
      ),
    );
  };
}

/** Whether the browser says this post came from another site. */
function crossSite(req: Request, context: GuardContext): boolean {
  if (req.get('sec-fetch-site') === 'cross-site') return true;
  const origin = req.get('origin');
  if (origin === undefined) return false;
  const own = `${req.protocol}://${req.get('host')}`;
  return origin !== own && origin !== context.publicOrigin;
}

/**
 * Checks a state-changing form: it must come from this site and carry the CSRF token of the visitor's session (or
 * pre-session, for the login form). Runs after the body parser. A failure is a 403 and changes nothing.
 */
export function requireForm(context: GuardContext): RequestHandler {
  return (req, res, next) => {
    const session = sessionOf(res);
    const pre = parseCookies(req.get('cookie')).get(PRE_SESSION_COOKIE);
    const id = session ? session.id : pre ? `pre|${pre}` : null;
    // Forms carry the token as a field; the page script's JSON posts (push subscriptions) as a header.
    const token = (req.body as Record<string, unknown> | undefined)?._csrf ?? req.get('x-csrf-token');
    if (!crossSite(req, context) && id !== null && context.signer.csrfMatches(id, token)) return next();
    sendPage(
      res,
      403,
      messagePage(
        viewerOf(req, res, context),
        'Form rejected',
        'This form did not come from a tollgate page open in this browser, so nothing was changed. Reload the page and try again.',
      ),
    );
  };
}
