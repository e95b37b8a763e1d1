/**
 * @module http/login-links-route
 * `POST /v1/web/login-links` (admin): a new one-time web login link from the running gateway, for when the link
 * `serve` printed was used or lost — no restart. The web channel mints it; this module only knows the small
 * {@link LoginLinkSource} shape, so the HTTP layer imports no channel.
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '../api/api-schema.js';
import { ConflictError } from '../api/errors.js';
import { requireScope } from './auth.js';

/** What mints login links (the web channel). */
export interface LoginLinkSource {
  /**
   * A one-time link signing in as `user` (default: the login-link user), resolved once it is stored; null when links
   * are turned off.
   */
  loginUrl(baseUrl: string, user?: string): Promise<string | null>;
}

/** Whether `channel` can mint login links (the web channel can). */
export function isLoginLinkSource(channel: unknown): channel is LoginLinkSource {
  return typeof (channel as Partial<LoginLinkSource> | undefined)?.loginUrl === 'function';
}

/** `POST /v1/web/login-links` body. */
export const loginLinkSchema = z.strictObject({
  user: z
    .string()
    .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'letters, digits and . _ @ - only (at most 64)')
    .optional(),
});

/** Builds the router mounted at `/v1/web/login-links`. */
export function loginLinksRouter(source: LoginLinkSource): Router {
  const router = Router();
  router.post('/', requireScope('admin'), async (req, res) => {
    const body = parseInput(loginLinkSchema, req.body ?? {}, 'body');
    // The listening address as the caller reached it; a configured TOLLGATE_PUBLIC_URL wins inside the channel.
    const url = await source.loginUrl(`${req.protocol}://${req.get('host') ?? '127.0.0.1'}`, body.user);
    if (!url) throw new ConflictError('login links are turned off (web.login_link: false)', 'tollgate_login_links_off');
    res.status(201).json({ url, one_time: true });
  });
  return router;
}
