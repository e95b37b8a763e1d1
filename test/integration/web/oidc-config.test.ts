/**
 * OpenID sign-in's configuration: start-up errors that name the variable (unreachable or wrong issuer, http:// off
 * loopback, no public URL), and `web.local_users: false`, which leaves the provider as the only way in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { webLoginMessage } from '../../../channels/web/index.js';
import { loadConfig } from '../../../src/config.js';
import { createServer } from '../../../src/server.js';
import { freePort } from '../../fakes/oidc/provider.js';
import { startOidcHarness, walkProvider, type OidcHarness } from '../../fakes/oidc/harness.js';
import { visibleText, WebClient } from './web-client.js';

const start = (env: Record<string, string>) =>
  createServer({
    config: loadConfig(
      { port: 0, db: join(mkdtempSync(join(tmpdir(), 'tollgate-oidc-cfg-')), 'tollgate.db') },
      { TOLLGATE_API_TOKENS: 'test-token', ...env },
    ),
    logger: pino({ level: 'silent' }),
  });

describe('OpenID sign-in: configuration', () => {
  it('an unreachable issuer stops the start, naming TOLLGATE_OIDC_ISSUER', async () => {
    const issuer = `http://127.0.0.1:${await freePort()}`;
    await expect(
      start({
        TOLLGATE_OIDC_ISSUER: issuer,
        TOLLGATE_OIDC_CLIENT_ID: 'tollgate',
        TOLLGATE_PUBLIC_URL: 'http://127.0.0.1:8787',
      }),
    ).rejects.toThrow(`TOLLGATE_OIDC_ISSUER: OpenID discovery from ${issuer}/ failed`);
  });

  it('refuses http:// off loopback, a missing client id and a missing public URL, naming each', async () => {
    await expect(
      start({
        TOLLGATE_OIDC_ISSUER: 'http://idp.example.com',
        TOLLGATE_OIDC_CLIENT_ID: 'x',
        TOLLGATE_PUBLIC_URL: 'https://gate.example.com',
      }),
    ).rejects.toThrow('TOLLGATE_OIDC_ISSUER: http:// is accepted only on a loopback address');
    await expect(
      start({ TOLLGATE_OIDC_ISSUER: 'https://idp.example.com', TOLLGATE_PUBLIC_URL: 'https://gate.example.com' }),
    ).rejects.toThrow('TOLLGATE_OIDC_CLIENT_ID: required');
    await expect(
      start({ TOLLGATE_OIDC_ISSUER: 'https://idp.example.com', TOLLGATE_OIDC_CLIENT_ID: 'x' }),
    ).rejects.toThrow('TOLLGATE_PUBLIC_URL: required with OpenID sign-in');
    await expect(start({ TOLLGATE_OIDC_ISSUER: 'not a url', TOLLGATE_OIDC_CLIENT_ID: 'x' })).rejects.toThrow(
      'TOLLGATE_OIDC_ISSUER: not a URL',
    );
  });

  describe('web.local_users: false', () => {
    let harness: OidcHarness;
    afterEach(async () => {
      await harness?.close();
    });

    it('turns login links and passwords off; the provider still signs people in', async () => {
      harness = await startOidcHarness({
        accounts: [{ id: 'alice', email: 'alice@example.com' }],
        yaml: 'people:\n  - { id: alice, email: alice@example.com }\nweb:\n  local_users: false\n',
      });
      const web = harness.server.gateway.channels.get('web');
      expect(await webLoginMessage(web, harness.url)).toBeNull();
      const browser = new WebClient(harness.url);
      const login = await browser.request('/ui/login');
      expect(login.text).toContain('href="/ui/auth/login?next=%2Fui"');
      expect(login.text).not.toContain('name="secret"');
      expect(visibleText(login.text)).not.toContain('one-time login link');
      const link = await browser.request('/ui/login?token=anything.YWRtaW4');
      expect(link.status).toBe(403);
      expect(visibleText(link.text)).toContain('Local sign-in is off');
      const posted = await browser.request('/ui/login', {
        form: { name: 'admin', secret: 'whatever-it-is', next: '/ui' },
        headers: { origin: harness.url },
      });
      expect(posted.status).toBe(403);
      expect(visibleText(posted.text)).toContain('Local sign-in is off');
      expect(browser.cookies.get('tollgate_session')).toBeUndefined();
      expect((await walkProvider(browser, '/ui/auth/login', 'alice')).page.path).toBe('/ui');
    });

    it('is a start-up error without a provider, or with local users listed', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tollgate-oidc-cfg-'));
      writeFileSync(join(dir, 'a.yaml'), 'web:\n  local_users: false\n');
      await expect(start({ TOLLGATE_CONFIG: join(dir, 'a.yaml') })).rejects.toThrow(
        'web.local_users: false leaves nobody a way to sign in',
      );
      writeFileSync(
        join(dir, 'b.yaml'),
        'web:\n  local_users: false\n  users: [{ name: bob, token_env: BOB_TOKEN }]\n',
      );
      const env = {
        TOLLGATE_CONFIG: join(dir, 'b.yaml'),
        BOB_TOKEN: 'bob-token-0123456789',
        TOLLGATE_OIDC_ISSUER: 'https://idp.example.com',
        TOLLGATE_OIDC_CLIENT_ID: 'x',
        TOLLGATE_PUBLIC_URL: 'https://gate.example.com',
      };
      await expect(start(env)).rejects.toThrow('web.users: listed, but web.local_users is false');
    });
  });
});
