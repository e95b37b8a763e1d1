/**
 * `tollgate login-link [--user U]`: a new one-time login link from a running gateway, no restart; admin tokens only;
 * only configured users or the login-link user; the user in a link cannot be edited.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { run } from '../../../src/cli/login-link.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { visibleText, WebClient } from './web-client.js';

describe('tollgate login-link', () => {
  let server: TestServer;

  beforeEach(async () => {
    server = await startTestServer({
      channels: [createWebChannel({ users: [{ name: 'bob', token: 'bob-token-0123456789abcdef' }] })],
    });
  });

  afterEach(async () => {
    await server.close();
  });

  const cli = async (argv: string[], token = server.token) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(argv, {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
      env: { TOLLGATE_URL: server.url, TOLLGATE_TOKEN: token },
    });
    return { code, out: out.join(''), err: err.join('') };
  };

  it('prints a link that signs in once, as the login-link user or as the named user', async () => {
    for (const [argv, user] of [
      [[], 'admin'],
      [['--user', 'bob'], 'bob'],
    ] as const) {
      const { code, out } = await cli([...argv]);
      expect(code).toBe(0);
      const link = out.trim();
      expect(link).toMatch(new RegExp(`^${server.url}/ui/login\\?token=`));
      const browser = new WebClient(server.url);
      const page = await browser.request(link);
      expect(page.path).toBe('/ui');
      expect(visibleText(page.text)).toContain(`web:${user}`);
      expect((await new WebClient(server.url).request(link)).status).toBe(401);
    }
  });

  it('refuses a name that is not a web user, and a token without admin', async () => {
    const unknown = await cli(['--user', 'mallory']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('400');
    expect(unknown.err).toContain('"mallory" is not a web user');
    const created = await server.api('/v1/tokens', { body: { name: 'auditor', scopes: ['audit:read'] } });
    const { secret } = (await created.json()) as { secret: string };
    const refused = await cli([], secret);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('403');
  });

  it('a link for bob edited to name admin signs nobody in', async () => {
    const link = (await cli(['--user', 'bob'])).out.trim();
    const forged = link.replace(/\.[A-Za-z0-9_-]+$/, `.${Buffer.from('admin').toString('base64url')}`);
    expect(forged).not.toBe(link);
    expect((await new WebClient(server.url).request(forged)).status).toBe(401);
    expect((await new WebClient(server.url).request(link)).path).toBe('/ui');
  });
});
