/**
 * A real OpenID provider for the tests: `oidc-provider` (a certified implementation) on 127.0.0.1, with clients and
 * accounts given by the test. Its development login page takes any registered account id as the login (the password
 * is not checked), then asks for consent: a plain HTTP client or a real browser can walk it.
 *
 * `tamper` rewrites the next ID tokens the token endpoint returns and signs them again with the provider's own key, so
 * the relying party sees a correctly signed token that is wrong in one way (another audience): what a token minted
 * for another client, or a confused provider, looks like.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** An account the provider knows: its id is what the login page takes. */
export interface FakeAccount {
  id: string;
  email: string;
  /** The `email_verified` claim as sent (default true); null leaves the claim out, as Entra ID does. */
  emailVerified?: boolean | string | null;
  /** Further claims of the `email` scope, as a provider's own (Entra ID's `xms_edov`). */
  emailClaims?: { xms_edov?: unknown };
  name?: string;
  groups?: string[];
}

/** A registered client. */
export interface FakeClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
}

/** Options of {@link startOidcProvider}. */
export interface FakeProviderOptions {
  accounts: FakeAccount[];
  clients: FakeClient[];
  /** ID token lifetime (oidc-provider's default is an hour). */
  idTokenTtlS?: number;
  /** Listen on this port (default: any free one). */
  port?: number;
}

/** A running provider. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>`: what `TOLLGATE_OIDC_ISSUER` names. */
  issuer: string;
  /**
   * Rewrites the claims of every ID token the token endpoint returns until called with null; `foreignKey` signs them
   * with a key the provider's JWKS does not hold (under the provider's own `kid`), as a forger would.
   */
  tamper(rewrite: ((claims: JWTPayload) => JWTPayload) | null, options?: { foreignKey?: boolean }): void;
  /** Requests the provider answered, by path (`/token`, `/session/end`…), oldest first. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** Starts a provider; close it in afterEach. */
export async function startOidcProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(privateKey)), kid: 'fake-key-1', alg: 'RS256', use: 'sig' };
  const accounts = new Map(options.accounts.map((a) => [a.id, a]));
  const provider = new Provider(issuer, {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      post_logout_redirect_uris: c.postLogoutRedirectUris ?? [],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: ['fake-provider-cookie-key'] },
    pkce: { required: () => true },
    // The claims go into the ID token itself, as most providers do for the scopes asked.
    conformIdTokenClaims: false,
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified', 'xms_edov'], profile: ['name'], groups: ['groups'] },
    ttl: { IdToken: options.idTokenTtlS ?? 3600, AccessToken: 3600, Grant: 3600, Session: 3600, Interaction: 600 },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          const verified = account.emailVerified === undefined ? true : account.emailVerified;
          return {
            sub: id,
            email: account.email,
            ...(verified === null ? {} : { email_verified: verified }),
            ...account.emailClaims,
            name: account.name ?? id,
            groups: account.groups ?? [],
          };
        },
      };
    },
  });
  let rewrite: ((claims: JWTPayload) => JWTPayload) | null = null;
  let signingKey = privateKey;
  const seen: string[] = [];
  provider.use(async (ctx, next) => {
    seen.push(ctx.path);
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (rewrite && ctx.path === '/token' && ctx.status === 200 && typeof body?.id_token === 'string') {
      const claims = rewrite(decodeJwt(body.id_token));
      ctx.body = {
        ...body,
        id_token: await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid }).sign(signingKey),
      };
    }
  });
  // oidc-provider warns about its development defaults on every start; the tests know.
  provider.on('server_error', (_ctx, error) => console.error('fake OIDC provider:', error));
  server.on('request', provider.callback());
  return {
    issuer,
    seen,
    tamper(next, options = {}) {
      rewrite = next;
      signingKey = options.foreignKey ? foreign : privateKey;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port held open until `release()`: a gateway whose public URL must be known before it starts listens on it right
 * after the release. Held, it cannot be given to a server another test (or this one's provider) starts meanwhile, as a
 * port probed and closed at once could (EADDRINUSE at the gateway's listen, seen in a shuffled run).
 */
export async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  return { port, release: () => new Promise<void>((resolve) => probe.close(() => resolve())) };
}

/** A port nobody listens on right now (for a URL nothing will answer at). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
