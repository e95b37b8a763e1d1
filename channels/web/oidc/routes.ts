/**
 * @module channels/web/oidc/routes
 * `GET /ui/auth/login` leaves for the provider, `GET /ui/auth/callback` comes back from it. What the flow must
 * remember (state, nonce, PKCE verifier, where to go next) rides in a signed cookie that lasts ten minutes, so the
 * callback works on whichever replica it lands. Every refusal is a page in plain words, an audit line, and no session.
 */
import { Router, type Request, type Response } from 'express';
import type { Directory } from '../../../src/people/types.js';
import { safeNext, secureCookies, sendPage, viewerOf, type GuardContext } from '../guard.js';
import { encodeSessionData } from '../identity.js';
import { messagePage } from '../pages/message.js';
import { parseCookies, serializeCookie } from '../cookies.js';
import { SESSION_COOKIE } from '../session.js';
import { signInOf } from './claims.js';
import type { OidcClient, OidcFlow } from './client.js';
import { OidcSignInError } from './errors.js';

/** The flow cookie's name; it is scoped to `/ui/auth`. */
export const FLOW_COOKIE = 'tollgate_oidc';
const FLOW_TTL_MS = 10 * 60_000;
const FLOW_PURPOSE = 'oidc-flow';

/** What the sign-in routes need besides the guards'. */
export interface OidcRoutesContext extends GuardContext {
  client: OidcClient;
  directory(): Directory | null;
  audit(line: Record<string, unknown>): void;
  /** The gateway's clock (ms): when the groups claim was read. */
  now(): number;
}

/** A flow as sealed in the cookie. */
interface SealedFlow extends OidcFlow {
  next: string;
}

function readFlow(value: unknown): SealedFlow | null {
  const v = value as Partial<SealedFlow> | null;
  return v &&
    typeof v.state === 'string' &&
    typeof v.nonce === 'string' &&
    typeof v.verifier === 'string' &&
    typeof v.next === 'string'
    ? (v as SealedFlow)
    : null;
}

/** Builds the OpenID sign-in routes (relative to `/ui`). */
export function oidcRoutes(context: OidcRoutesContext): Router {
  const router = Router();
  const flowCookie = (req: Request, value: string, maxAgeS: number) =>
    serializeCookie(FLOW_COOKIE, value, { secure: secureCookies(req, context), maxAgeS, path: '/ui/auth' });

  router.get('/auth/login', async (req, res) => {
    const { url, flow } = await context.client.start();
    const sealed = context.signer.seal(
      FLOW_PURPOSE,
      { ...flow, next: safeNext(req.query.next) } satisfies SealedFlow,
      FLOW_TTL_MS,
    );
    res.append('set-cookie', flowCookie(req, sealed, FLOW_TTL_MS / 1000));
    res.redirect(303, url.href);
  });

  router.get('/auth/callback', async (req, res) => {
    // The flow is spent whatever happens: a second try starts over at the provider.
    res.append('set-cookie', flowCookie(req, '', 0));
    const flow = readFlow(context.signer.unseal(FLOW_PURPOSE, parseCookies(req.get('cookie')).get(FLOW_COOKIE)));
    try {
      if (!flow)
        throw new OidcSignInError(
          400,
          'no_flow',
          'This sign-in was not started in this browser, or took longer than ten minutes.',
        );
      // The redirect URI as registered (behind a proxy the path seen here may differ), with the provider's parameters.
      const url = new URL(context.client.options.redirectUri);
      url.search = new URL(req.originalUrl, url).search;
      const claims = await context.client.finish(url, flow);
      const data = signInOf(claims, context.client.options, context.directory(), context.now());
      const { cookie } = context.signer.issue('oidc', encodeSessionData(data));
      res.append(
        'set-cookie',
        serializeCookie(SESSION_COOKIE, cookie, {
          secure: secureCookies(req, context),
          maxAgeS: context.signer.ttlMs / 1000,
        }),
      );
      context.audit({ event: 'sign_in_oidc', email: data.email, groups: data.groups, address: req.ip });
      res.redirect(303, flow.next);
    } catch (error) {
      if (!(error instanceof OidcSignInError)) throw error;
      context.audit({ event: 'sign_in_refused', reason: error.reason, address: req.ip });
      refusal(req, res, context, error);
    }
  });
  return router;
}

function refusal(req: Request, res: Response, context: GuardContext, error: OidcSignInError): void {
  const title = error.status === 403 ? 'Not allowed to sign in' : 'Sign-in failed';
  sendPage(
    res,
    error.status,
    messagePage(
      viewerOf(req, res, context),
      title,
      `${error.message} Nothing was signed in. Start again from the sign-in page.`,
    ),
  );
}
