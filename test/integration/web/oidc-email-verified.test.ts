/**
 * The attack: an account at the provider whose ID token says `email: carol@example.com` without `email_verified`
 * signed in as carol (only an explicit `false` was refused). Now the claim must be the boolean `true`, checked against
 * the real provider: false, missing, and the string "false" are each refused (403 in plain words, a log line, no
 * session); only `web.oidc.require_verified_email: false`, set on purpose, lets a token without the claim in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { webOptionsFromConfig } from '../../../channels/web/web-config.js';
import { startOidcHarness, walkProvider, type OidcHarness } from '../../fakes/oidc/harness.js';
import { visibleText, WebClient } from './web-client.js';

const YAML = `
people:
  - { id: carol, name: Carol Diaz, email: carol@example.com }
`;

const ACCOUNTS = [
  { id: 'carol', email: 'carol@example.com', name: 'Carol Diaz', emailVerified: true },
  { id: 'unverified', email: 'carol@example.com', name: 'Carol Diaz', emailVerified: false },
  { id: 'unsaid', email: 'carol@example.com', name: 'Carol Diaz', emailVerified: null },
  { id: 'string-false', email: 'carol@example.com', name: 'Carol Diaz', emailVerified: 'false' },
  { id: 'string-true', email: 'carol@example.com', name: 'Carol Diaz', emailVerified: 'true' },
  // Entra ID: no email_verified; its optional claim xms_edov says whether the address's domain is the tenant's own.
  {
    id: 'entra-edov',
    email: 'carol@example.com',
    name: 'Carol Diaz',
    emailVerified: null,
    emailClaims: { xms_edov: true },
  },
  {
    id: 'entra-foreign',
    email: 'carol@example.com',
    name: 'Carol Diaz',
    emailVerified: null,
    emailClaims: { xms_edov: false },
  },
];

describe('OpenID sign-in: email_verified', () => {
  let harness: OidcHarness;
  afterEach(async () => {
    await harness?.close();
  });

  const signIn = async (login: string) => {
    const browser = new WebClient(harness.url);
    const { page } = await walkProvider(browser, '/ui/auth/login', login);
    return { browser, page };
  };

  it.each([
    ['unverified', 'false', 'email_unverified', 'has not verified the address carol@example.com'],
    ['unsaid', 'missing', 'email_verified_missing', 'did not say it has verified the address carol@example.com'],
    ['string-false', 'the string "false"', 'email_unverified', 'has not verified the address carol@example.com'],
    ['string-true', 'the string "true"', 'email_unverified', 'has not verified the address carol@example.com'],
    [
      'entra-foreign',
      'missing, with xms_edov false',
      'email_unverified',
      'has not verified the address carol@example.com',
    ],
  ])(
    'an ID token whose email_verified is %s (%s) signs nobody in: 403, a log line, no session',
    async (login, _what, reason, words) => {
      harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
      const { browser, page } = await signIn(login);
      expect(page.status).toBe(403);
      expect(visibleText(page.text)).toContain(words);
      expect(browser.cookies.get('tollgate_session')).toBeUndefined();
      expect(harness.logs.some((l) => l.event === 'sign_in_refused' && l.reason === reason)).toBe(true);
      expect(harness.logs.some((l) => l.event === 'sign_in_oidc')).toBe(false);
      // Nothing was signed in: the inbox still sends the browser to the login page.
      expect((await browser.request('/ui', { manual: true })).headers.get('location')).toMatch(/^\/ui\/login/);
    },
  );

  it('email_verified: true signs in as the person', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const { browser, page } = await signIn('carol');
    expect(page.path).toBe('/ui');
    expect(visibleText(page.text)).toContain('Carol Diaz (carol@example.com)');
    expect(browser.cookies.get('tollgate_session')).toBeDefined();
  });

  it("without email_verified, Entra ID's xms_edov: true stands in for it", async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const { page } = await signIn('entra-edov');
    expect(page.path).toBe('/ui');
    expect(visibleText(page.text)).toContain('Carol Diaz (carol@example.com)');
  });

  it('with require_verified_email: false, a token without the claim signs in; one that says false still does not', async () => {
    harness = await startOidcHarness({
      accounts: ACCOUNTS,
      yaml: `${YAML}web:\n  oidc:\n    require_verified_email: false\n`,
    });
    const unsaid = await signIn('unsaid');
    expect(unsaid.page.path).toBe('/ui');
    expect(visibleText(unsaid.page.text)).toContain('Carol Diaz (carol@example.com)');
    for (const login of ['unverified', 'string-false']) {
      const refused = await signIn(login);
      expect(refused.page.status).toBe(403);
      expect(refused.browser.cookies.get('tollgate_session')).toBeUndefined();
    }
  });

  it('require_verified_email takes a boolean only: anything else is an error naming the file and the entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-oidc-verified-'));
    const path = join(dir, 'tollgate.yaml');
    writeFileSync(path, 'web:\n  oidc:\n    require_verified_email: "no"\n');
    const config = loadConfig(
      { port: 0, db: join(dir, 'tollgate.db') },
      {
        TOLLGATE_API_TOKENS: 'test-token',
        TOLLGATE_CONFIG: path,
        TOLLGATE_OIDC_ISSUER: 'https://idp.example.com',
        TOLLGATE_OIDC_CLIENT_ID: 'x',
        TOLLGATE_PUBLIC_URL: 'https://gate.example.com',
      },
    );
    expect(() => webOptionsFromConfig(config)).toThrow(`${path}: web.oidc.require_verified_email: expected boolean`);
  });
});
