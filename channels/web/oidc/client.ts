/**
 * @module channels/web/oidc/client
 * The relying party: discovery from the issuer, the authorization URL (code flow with PKCE, `state` and `nonce`), the
 * code exchange with ID token validation (issuer, audience, expiry, nonce, and the signature against the provider's
 * JWKS, which openid-client skips by default), and
 * the RP-initiated logout URL. All of it is `openid-client`'s; this file only wires it to tollgate's clock and words
 * its failures for a person.
 */
import * as client from 'openid-client';
import { ValidationError } from '../../../src/api/errors.js';
import type { OidcOptions } from './config.js';
import { OidcSignInError } from './errors.js';

export { OidcSignInError };

/** What a sign-in must remember between leaving for the provider and coming back (kept in a signed cookie). */
export interface OidcFlow {
  state: string;
  nonce: string;
  verifier: string;
}

/** How long discovery may take at start-up before the start fails. */
const DISCOVERY_TIMEOUT_S = 10;

/** The relying party for one provider. Build it with {@link OidcClient.discover}. */
export class OidcClient {
  private jwks: client.ExportedJWKSCache | undefined;

  private constructor(
    readonly options: OidcOptions,
    private readonly server: client.ServerMetadata,
    private now: () => number,
  ) {}

  /** Judges ID token times by `now` from here on (the gateway's clock, once the channel is mounted). */
  useClock(now: () => number): void {
    this.now = now;
  }

  /**
   * Reads the provider's discovery document. Run at start-up: a wrong issuer stops the start, naming the variable.
   * @throws ValidationError naming `TOLLGATE_OIDC_ISSUER` when discovery fails.
   */
  static async discover(options: OidcOptions, now: () => number = Date.now): Promise<OidcClient> {
    try {
      const config = await client.discovery(options.issuer, options.clientId, options.clientSecret, undefined, {
        timeout: DISCOVERY_TIMEOUT_S,
        execute: options.issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
      });
      return new OidcClient(options, config.serverMetadata(), now);
    } catch (error) {
      const why =
        error instanceof Error
          ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
          : String(error);
      throw new ValidationError(`TOLLGATE_OIDC_ISSUER: OpenID discovery from ${options.issuer.href} failed: ${why}`, [
        { path: 'TOLLGATE_OIDC_ISSUER', message: 'discovery failed' },
      ]);
    }
  }

  /**
   * A configuration on tollgate's clock: the ID token's `iat`/`exp` are judged against `now()` (a `ManualClock` in
   * tests), with the configured tolerance. Built per use, so the clock is read each time; the key set is carried over.
   */
  private configuration(): client.Configuration {
    const skewS = Math.round((this.now() - Date.now()) / 1000);
    const metadata: Partial<client.ClientMetadata> = {
      client_secret: this.options.clientSecret,
      [client.clockSkew]: skewS,
      [client.clockTolerance]: this.options.clockToleranceS,
    };
    const auth = this.options.clientSecret ? undefined : client.None();
    const config = new client.Configuration(this.server, this.options.clientId, metadata, auth);
    if (this.options.issuer.protocol === 'http:') client.allowInsecureRequests(config);
    // openid-client trusts the TLS connection to the token endpoint and skips the ID token's signature by default
    // (OpenID Core 3.1.3.7 allows it); we check it against the provider's JWKS as well, so a token that did not come
    // from the provider's keys never signs anyone in, whatever sits between us and the provider.
    client.enableNonRepudiationChecks(config);
    if (this.jwks) client.setJwksCache(config, this.jwks);
    return config;
  }

  /** A new flow and the provider URL that starts it. */
  async start(): Promise<{ url: URL; flow: OidcFlow }> {
    const flow: OidcFlow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(this.configuration(), {
      redirect_uri: this.options.redirectUri,
      scope: this.options.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url, flow };
  }

  /**
   * Finishes a flow at the callback: exchanges the code and validates the ID token. Returns its claims.
   * @throws OidcSignInError for every way the callback can be wrong.
   */
  async finish(callbackUrl: URL, flow: OidcFlow): Promise<client.IDToken> {
    const params = callbackUrl.searchParams;
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description');
      throw new OidcSignInError(
        401,
        `provider_error:${error}`,
        `The identity provider did not sign you in (${error}${description ? `: ${description}` : ''}).`,
      );
    }
    // Checked here too, before any call to the provider: a forged or stale callback costs nothing.
    if (params.get('state') !== flow.state)
      throw new OidcSignInError(
        400,
        'bad_state',
        'This sign-in link does not belong to the sign-in started in this browser.',
      );
    const config = this.configuration();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (caught) {
      throw signInErrorOf(caught);
    } finally {
      this.jwks = client.getJwksCache(config) ?? this.jwks;
    }
    const claims = tokens.claims();
    if (!claims) throw new OidcSignInError(401, 'no_id_token', 'The identity provider sent no ID token.');
    return claims;
  }

  /** Where to send the browser to sign out at the provider too; null when it offers no `end_session_endpoint`. */
  endSessionUrl(): URL | null {
    if (!this.server.end_session_endpoint) return null;
    return client.buildEndSessionUrl(this.configuration(), {
      client_id: this.options.clientId,
      post_logout_redirect_uri: this.options.postLogoutRedirectUri,
    });
  }
}

/** The provider refused the code (replayed, expired, for another client) or the ID token failed a check. */
function signInErrorOf(error: unknown): OidcSignInError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown; error?: unknown }).error ?? (error as { code?: unknown }).code;
  // fetch itself failed: the provider is down or unreachable from here, which is nobody's bad input.
  const name = error instanceof Error ? error.name : '';
  if ((error instanceof TypeError && message === 'fetch failed') || name === 'TimeoutError' || name === 'AbortError') {
    return new OidcSignInError(
      502,
      `provider_unreachable:${message}`,
      'The identity provider could not be reached to finish signing you in. Try again in a moment.',
    );
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcSignInError(
      400,
      `code_rejected:${String(code)}`,
      'The identity provider refused this sign-in code: it was already used or has expired. Sign in again.',
    );
  }
  // oauth4webapi names the claim that failed (aud, exp, iss, nonce…) in the cause of openid-client's error, or its
  // cause's cause, and the innermost message says what was wrong ("JWT signature verification failed"): the log
  // line says both.
  let claim: unknown;
  let inner = message;
  for (let cause: unknown = error; cause && typeof cause === 'object'; cause = (cause as { cause?: unknown }).cause) {
    claim ??= (cause as { claim?: unknown }).claim;
    if (cause instanceof Error) inner = cause.message;
  }
  const why = inner === message ? message : `${message}: ${inner}`;
  return new OidcSignInError(
    401,
    `id_token_rejected:${String(code)}${typeof claim === 'string' ? `:${claim}` : ''}:${why}`,
    'The identity provider’s answer did not pass the checks (issuer, audience, expiry or signature). Nobody was signed in.',
  );
}
