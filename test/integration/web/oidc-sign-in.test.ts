/**
 * OpenID sign-in for `/ui` against a real provider (oidc-provider on 127.0.0.1), walked through plain HTTP with a
 * cookie jar: discovery, code flow with PKCE, the address to a person of the directory, the groups claim to a group,
 * who may not sign in, sign-out at the provider, and every bad callback (no session, a page in plain words, a log line).
 */
import type { JWTPayload } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT, OTHER_CLIENT, startOidcHarness, walkProvider, type OidcHarness } from '../../fakes/oidc/harness.js';
import { visibleText, WebClient } from './web-client.js';

const YAML = `
people:
  - { id: alice, name: Alice Martin, email: alice@example.com }
  - { id: bob, name: Bob Stone, email: bob@example.com, accounts: { web: bob } }
groups:
  finance-leads: [alice]
`;

const ACCOUNTS = [
  { id: 'alice', email: 'Alice@Example.com', name: 'Alice Martin' },
  { id: 'bob', email: 'bob@example.com', groups: ['payments'] },
  { id: 'mallory', email: 'mallory@elsewhere.org' },
  { id: 'stranger', email: 'stranger@example.com' },
];

describe('OpenID sign-in (web inbox)', () => {
  let harness: OidcHarness;
  afterEach(async () => {
    await harness?.close();
  });

  const sessionCookie = (browser: WebClient) => browser.cookies.get('tollgate_session');

  it('discovers the provider, signs in with code + PKCE, and maps the verified address to its person', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const browser = new WebClient(harness.url);
    const start = await browser.request('/ui/auth/login?next=/ui/audit', { manual: true });
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(harness.provider.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('client_id')).toBe(CLIENT.clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${harness.url}/ui/auth/callback`);
    for (const p of ['state', 'nonce', 'code_challenge']) expect(authorize.searchParams.get(p)).toBeTruthy();
    expect(authorize.searchParams.get('scope')).toBe('openid email profile');
    // The flow cookie is signed and short-lived, scoped to the callback.
    expect(start.setCookies.find((c) => c.startsWith('tollgate_oidc='))).toMatch(
      /Path=\/ui\/auth; HttpOnly; SameSite=Lax; Max-Age=600/,
    );

    const { page } = await walkProvider(browser, authorize.href, 'alice');
    expect(page.status).toBe(200);
    expect(page.path).toBe('/ui/audit');
    expect(visibleText(page.text)).toContain('Alice Martin (alice@example.com)');
    expect(harness.provider.seen).toContain('/token');
    expect(harness.logs.some((l) => l.event === 'sign_in_oidc' && l.email === 'alice@example.com')).toBe(true);
  });

  it('decides as the person: their web account when they have one, else person:<id>', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const gateway = harness.server.gateway;
    for (const [login, expected] of [
      ['alice', 'person:alice'],
      ['bob', 'web:bob'],
    ] as const) {
      const browser = new WebClient(harness.url);
      await walkProvider(browser, '/ui/auth/login', login);
      const request = (
        await gateway.request({
          toolName: 'pay_invoice',
          toolArgs: { amount: 10 },
          approvers: [`person:${login}`],
          timeoutS: 300,
        })
      ).request;
      const decided = await browser.decide(request.id, { decision: 'approve' });
      expect(visibleText(decided.text)).toContain('Approved');
      const row = await gateway.get(request.id);
      expect(row?.respondedBy).toBe(expected);
      expect(row?.respondedVia).toBe('web');
    }
  });

  it('someone the directory does not know signs in and sees nothing to decide; auto_people makes them a person', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const request = (await harness.server.gateway.request({ toolName: 'deploy', timeoutS: 300 })).request;
    const browser = new WebClient(harness.url);
    const { page } = await walkProvider(browser, '/ui/auth/login', 'stranger');
    expect(page.path).toBe('/ui');
    expect(visibleText(page.text)).toContain('the people directory does not know stranger@example.com');
    expect(page.text).not.toContain(request.id);
    expect((await browser.request(`/ui/requests/${request.id}`)).status).toBe(403);
    await harness.close();

    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: `${YAML}web:\n  oidc:\n    auto_people: true\n` });
    const open = (
      await harness.server.gateway.request({
        toolName: 'deploy',
        approvers: ['email:stranger@example.com'],
        timeoutS: 300,
      })
    ).request;
    const auto = new WebClient(harness.url);
    await walkProvider(auto, '/ui/auth/login', 'stranger');
    await auto.decide(open.id, { decision: 'approve' });
    expect((await harness.server.gateway.get(open.id))?.respondedBy).toBe('email:stranger@example.com');
  });

  it('allowed_domains and allowed_groups refuse others: 403 in plain words, logged, no session', async () => {
    harness = await startOidcHarness({
      accounts: ACCOUNTS,
      yaml: `${YAML}web:\n  oidc:\n    allowed_domains: [example.com]\n`,
    });
    const browser = new WebClient(harness.url);
    const { page } = await walkProvider(browser, '/ui/auth/login', 'mallory');
    expect(page.status).toBe(403);
    expect(visibleText(page.text)).toContain('Addresses at elsewhere.org may not sign in');
    expect(sessionCookie(browser)).toBeUndefined();
    expect(harness.logs.some((l) => l.event === 'sign_in_refused' && l.reason === 'domain_not_allowed')).toBe(true);
    await harness.close();

    harness = await startOidcHarness({
      accounts: ACCOUNTS,
      yaml: `${YAML}web:\n  oidc:\n    scopes: [groups]\n    groups_claim: groups\n    allowed_groups: [payments]\n`,
    });
    const outsider = new WebClient(harness.url);
    expect((await walkProvider(outsider, '/ui/auth/login', 'alice')).page.status).toBe(403);
    expect(sessionCookie(outsider)).toBeUndefined();
    const member = new WebClient(harness.url);
    expect((await walkProvider(member, '/ui/auth/login', 'bob')).page.path).toBe('/ui');
  });

  it('signing out ends the session here and sends the browser on to the provider’s end_session_endpoint', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const browser = new WebClient(harness.url);
    const { page } = await walkProvider(browser, '/ui/auth/login', 'alice');
    const old = sessionCookie(browser)!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const out = await browser.request('/ui/logout', {
      form: { _csrf: csrf },
      manual: true,
      headers: { origin: harness.url },
    });
    // A page, not a redirect: the form's CSP would stop a redirect to another origin; it moves on by itself.
    expect(out.status).toBe(200);
    expect(out.text).toContain('http-equiv="refresh"');
    const end = new URL(/id="end-session" href="([^"]+)"/.exec(out.text)![1]!.replace(/&amp;/g, '&'));
    expect(end.origin).toBe(harness.provider.issuer);
    expect(end.pathname).toBe('/session/end');
    expect(end.searchParams.get('client_id')).toBe(CLIENT.clientId);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${harness.url}/ui/login`);
    const replay = await fetch(`${harness.url}/ui`, {
      headers: { cookie: `tollgate_session=${old}` },
      redirect: 'manual',
    });
    expect(replay.headers.get('location')).toMatch(/^\/ui\/login/);
  });

  describe('bad callbacks: a 400/401 page, a log line, no session', () => {
    const refused = (browser: WebClient, status: number, words: string, page: { status: number; text: string }) => {
      expect(page.status).toBe(status);
      expect(visibleText(page.text)).toContain(words);
      expect(sessionCookie(browser)).toBeUndefined();
    };

    it('a state that is not the one this browser started with', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const browser = new WebClient(harness.url);
      const { callback } = await walkProvider(browser, '/ui/auth/login', 'alice', true);
      callback!.searchParams.set('state', 'forged-state');
      refused(
        browser,
        400,
        'does not belong to the sign-in started in this browser',
        await browser.request(callback!.href),
      );
      expect(harness.logs.some((l) => l.event === 'sign_in_refused' && l.reason === 'bad_state')).toBe(true);
      // A callback with no flow cookie at all (another browser, or after ten minutes).
      const other = new WebClient(harness.url);
      refused(other, 400, 'not started in this browser', await other.request(`/ui/auth/callback?code=x&state=y`));
    });

    it('a code used twice', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const browser = new WebClient(harness.url);
      const flowCookie = async () => {
        const { callback } = await walkProvider(browser, '/ui/auth/login', 'alice', true);
        return { callback: callback!, flow: browser.cookies.get('tollgate_oidc')! };
      };
      const { callback, flow } = await flowCookie();
      expect((await browser.request(callback.href)).path).toBe('/ui');
      // An attacker who kept the flow cookie and the callback URL replays both.
      const attacker = new WebClient(harness.url);
      attacker.cookies.set('tollgate_oidc', flow);
      refused(attacker, 400, 'refused this sign-in code', await attacker.request(callback.href));
      expect(
        harness.logs.some((l) => l.event === 'sign_in_refused' && String(l.reason).startsWith('code_rejected')),
      ).toBe(true);
    });

    it('an ID token for another audience, from another issuer, with another nonce, or signed with another key', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const cases = [
        { rewrite: (c: JWTPayload) => ({ ...c, aud: OTHER_CLIENT.clientId }), reason: /id_token_rejected.*:aud:/ },
        { rewrite: (c: JWTPayload) => ({ ...c, iss: 'https://idp.example.org' }), reason: /id_token_rejected.*:iss:/ },
        { rewrite: (c: JWTPayload) => ({ ...c, nonce: 'another-nonce' }), reason: /id_token_rejected.*:nonce:/ },
        { rewrite: (c: JWTPayload) => c, foreignKey: true, reason: /id_token_rejected.*signature/i },
      ];
      for (const { rewrite, foreignKey, reason } of cases) {
        harness.provider.tamper(rewrite, { foreignKey });
        const browser = new WebClient(harness.url);
        const { page } = await walkProvider(browser, '/ui/auth/login', 'alice');
        refused(browser, 401, 'did not pass the checks', page);
        expect(harness.logs.filter((l) => l.event === 'sign_in_refused').at(-1)?.reason).toMatch(reason);
      }
    });

    it('a code the provider issued to another client', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const browser = new WebClient(harness.url);
      const start = await browser.request('/ui/auth/login', { manual: true });
      const authorize = new URL(start.headers.get('location')!);
      authorize.searchParams.set('client_id', OTHER_CLIENT.clientId);
      const { callback } = await walkProvider(browser, authorize.href, 'alice', true);
      refused(browser, 400, 'refused this sign-in code', await browser.request(callback!.href));
    });

    it('an ID token expired by the gateway’s clock, beyond the tolerance', async () => {
      harness = await startOidcHarness({
        accounts: ACCOUNTS,
        yaml: `${YAML}web:\n  oidc:\n    clock_tolerance_s: 30\n`,
        idTokenTtlS: 60,
      });
      const browser = new WebClient(harness.url);
      const first = await walkProvider(browser, '/ui/auth/login', 'alice', true);
      // Within the lifetime plus tolerance, the token is still good.
      await harness.clock.advance(80_000);
      expect((await browser.request(first.callback!.href)).path).toBe('/ui');
      browser.cookies.delete('tollgate_session');
      const second = await walkProvider(browser, '/ui/auth/login', 'alice', true);
      await harness.clock.advance(91_000);
      refused(browser, 401, 'did not pass the checks', await browser.request(second.callback!.href));
      expect(
        harness.logs.some((l) => l.event === 'sign_in_refused' && /id_token_rejected.*:exp:/.test(String(l.reason))),
      ).toBe(true);
    });

    it('the provider gone between the sign-in and the callback: 502, not a verdict on the person', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const browser = new WebClient(harness.url);
      const { callback } = await walkProvider(browser, '/ui/auth/login', 'alice', true);
      await harness.provider.close();
      refused(browser, 502, 'could not be reached', await browser.request(callback!.href));
      expect(
        harness.logs.some((l) => l.event === 'sign_in_refused' && String(l.reason).startsWith('provider_unreachable')),
      ).toBe(true);
    });

    it('the provider says no (the person cancelled)', async () => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const browser = new WebClient(harness.url);
      const { callback } = await walkProvider(browser, '/ui/auth/login', 'alice', true);
      const denied = new URL(callback!.href);
      denied.search = new URLSearchParams({
        error: 'access_denied',
        error_description: 'End-User aborted interaction',
        state: callback!.searchParams.get('state')!,
      }).toString();
      refused(browser, 401, 'did not sign you in (access_denied', await browser.request(denied.href));
    });
  });
});
