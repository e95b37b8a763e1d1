/**
 * @module channels/web/oidc/errors
 * The sign-in failure the OIDC routes and claim checks throw. Kept apart from `client.ts` so that code which only
 * names the error (the routes, mounted whether or not OIDC is configured) does not load `openid-client`.
 */

/** Why a callback signs nobody in: `status` is the page's, `reason` the log line's, `message` the person's. */
export class OidcSignInError extends Error {
  override readonly name = 'OidcSignInError';
  constructor(
    readonly status: 400 | 401 | 403 | 502,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}
