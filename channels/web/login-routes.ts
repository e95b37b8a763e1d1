/**
 * @module channels/web/login-routes
 * Signing in and out: `GET /ui/login?token=…` spends a one-time login link, `POST /ui/login` checks a name with a
 * password or token, `POST /ui/logout` ends the session (and, after an OpenID sign-in, sends the browser to the
 * provider's sign-out when it offers one). Every way in issues a fresh signed session cookie. With
 * `web.local_users: false` the first two answer 403: only the provider signs anyone in.
 */
import { Router, type RequestHandler, type Request, type Response } from 'express';
import {
  requireForm,
  requireUser,
  safeNext,
  secureCookies,
  sendPage,
  sessionOf,
  viewerOf,
  type GuardContext,
} from './guard.js';
import { loginPage, signedOutPage } from './pages/login.js';
import { serializeCookie } from './cookies.js';
import { SESSION_COOKIE } from './session.js';
import type { SignInLimiter } from './sign-in-limiter.js';
import type { OidcClient } from './oidc/client.js';
import { messagePage } from './pages/message.js';

/** Builds the sign-in routes (relative to `/ui`). `oidc`: the provider, when sign-in through one is on. */
export function loginRoutes(
  context: GuardContext,
  forms: RequestHandler,
  limiter: SignInLimiter,
  audit: (line: Record<string, unknown>) => void,
  oidc: OidcClient | null = null,
): Router {
  const router = Router();
  // Local passwords and login links are off when neither exists (`web.local_users: false` with a provider).
  const local = context.auth.hasUsers || context.auth.loginLinks;
  const localOff = (req: Request, res: Response) => {
    audit({ event: 'sign_in_refused', reason: 'local_users_off', address: req.ip });
    sendPage(
      res,
      403,
      messagePage(
        viewerOf(req, res, context),
        'Local sign-in is off',
        'This gateway signs people in through its identity provider only: login links and passwords do not work here.',
      ),
    );
  };
  const signIn = (req: Request, res: Response, user: string, next: string) => {
    const { cookie } = context.signer.issue(user);
    res.append(
      'set-cookie',
      serializeCookie(SESSION_COOKIE, cookie, {
        secure: secureCookies(req, context),
        maxAgeS: context.signer.ttlMs / 1000,
      }),
    );
    res.redirect(303, next);
  };
  const page = (
    req: Request,
    res: Response,
    status: number,
    extra: { error?: string; name?: string; next: string },
  ) => {
    const viewer = viewerOf(req, res, context);
    sendPage(
      res,
      status,
      loginPage({
        csrf: viewer.csrf,
        hasUsers: context.auth.hasUsers,
        loginLinks: context.auth.loginLinks,
        oidc: oidc !== null,
        ...extra,
      }),
    );
  };

  /** Answers 429 when this name or address has failed too often; true when it did. */
  const throttled = (req: Request, res: Response, name: string, next: string): boolean => {
    const address = req.ip ?? 'unknown';
    const waitS = limiter.retryAfterS(name, address);
    if (waitS === 0) return false;
    audit({ event: 'sign_in_throttled', name, address, retry_after_s: waitS });
    res.setHeader('retry-after', String(waitS));
    page(req, res, 429, { next, name, error: `Too many failed sign-ins. Try again in ${waitS} s.` });
    return true;
  };
  const failed = (req: Request, name: string) => {
    limiter.failed(name, req.ip ?? 'unknown');
    audit({ event: 'sign_in_failed', name, address: req.ip });
  };

  router.get('/login', async (req, res) => {
    const next = safeNext(req.query.next);
    const token = req.query.token;
    if (typeof token === 'string' && token) {
      if (!local) return localOff(req, res);
      if (throttled(req, res, '', next)) return;
      const user = await context.auth.consumeLoginToken(token);
      if (user) return signIn(req, res, user, next);
      failed(req, '');
      return page(req, res, 401, {
        next,
        error:
          'This login link was already used or is not valid. Links work once; run npx tollgate login-link (or ask the gateway operator) for a new one.',
      });
    }
    if (sessionOf(res)) return res.redirect(303, next);
    page(req, res, 200, { next });
  });

  // Refused before the form is even read: with local users off no post here can sign anyone in.
  router.post(
    '/login',
    (req, res, next) => (local ? next() : localOff(req, res)),
    forms,
    requireForm(context),
    async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = typeof body.name === 'string' ? body.name.trim().slice(0, 64) : '';
      const secret = typeof body.secret === 'string' ? body.secret.slice(0, 1024) : '';
      const next = safeNext(body.next);
      if (throttled(req, res, name, next)) return;
      const user = await context.auth.check(name, secret);
      if (user) {
        limiter.succeeded(name);
        return signIn(req, res, user, next);
      }
      failed(req, name);
      page(req, res, 401, { next, name, error: 'Wrong name, password or token.' });
    },
  );

  router.post('/logout', requireUser(context), forms, requireForm(context), async (req, res) => {
    const session = sessionOf(res)!;
    await context.signer.revoke(session);
    res.append('set-cookie', serializeCookie(SESSION_COOKIE, '', { secure: secureCookies(req, context), maxAgeS: 0 }));
    // Signed in through the provider: sign out there too, or the next sign-in would pass straight through. Not by a
    // redirect: the form's CSP (`form-action 'self'`) covers its redirects, so a page sends the browser on instead.
    const endSession = session.data ? oidc?.endSessionUrl() : null;
    if (!endSession) return res.redirect(303, '/ui/login');
    res.locals.webSession = null;
    sendPage(res, 200, signedOutPage(viewerOf(req, res, context), endSession.href));
  });
  return router;
}
