/**
 * Signing in to the web pages: anonymous visitors see no request, one-time links work once, named users sign in with
 * an scrypt password or a token, sessions are HttpOnly SameSite cookies that cannot be forged, and signing out ends them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel, hashPassword, type WebChannel } from '../../../channels/web/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { formValue, WebClient } from './web-client.js';

describe('web sign-in', () => {
  let channel: WebChannel;
  let server: TestServer;
  let requestId: string;

  beforeEach(async () => {
    channel = createWebChannel({
      users: [
        { name: 'alice', passwordHash: await hashPassword('correct horse battery', 1024) },
        { name: 'bob', token: 'bob-token-0123456789abcdef' },
      ],
    });
    server = await startTestServer({ channels: [channel] });
    ({
      request: { id: requestId },
    } = await server.gateway.request({ toolName: 'wipe_disk', toolArgs: { device: '/dev/sda-secret-path' } }));
  });

  afterEach(async () => {
    await server.close();
  });

  it('sends anonymous visitors to the sign-in page and shows them no request', async () => {
    const anonymous = new WebClient(server.url);
    for (const path of ['/ui', `/ui/requests/${requestId}`, '/ui/audit', '/ui/audit/export?format=csv', '/ui/stream']) {
      const res = await anonymous.request(path, { manual: true });
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location')).toBe(`/ui/login?next=${encodeURIComponent(path)}`);
    }
    const page = await anonymous.request(`/ui/requests/${requestId}`);
    expect(page.path).toMatch(/^\/ui\/login/);
    expect(page.text).not.toContain('wipe_disk');
    expect(page.text).not.toContain('/dev/sda');
    const post = await anonymous.request(`/ui/requests/${requestId}/decision`, {
      form: { decision: 'approve' },
      manual: true,
    });
    expect(post.status).toBe(401);
    expect((await server.gateway.get(requestId))?.status).toBe('pending');
  });

  it('signs in once through a login link, with an HttpOnly SameSite session cookie', async () => {
    const link = (await channel.loginUrl(server.url))!;
    expect(link).toMatch(new RegExp(`^${server.url}/ui/login\\?token=[\\w-]{32}\\.[\\w-]+$`));
    const client = new WebClient(server.url);
    const res = await client.request(link);
    expect(res.path).toBe('/ui');
    expect(res.text).toContain('web:admin');
    const cookie = res.setCookies.find((c) => c.startsWith('tollgate_session='))!;
    expect(cookie).toMatch(/; Path=\/ui; HttpOnly; SameSite=Lax; Max-Age=43200$/);

    const again = await new WebClient(server.url).request(link);
    expect(again.status).toBe(401);
    expect(again.text).toContain('already used');
  });

  it('uses the public URL for login links when one is configured', async () => {
    const behindProxy = createWebChannel({ publicUrl: 'https://gate.example.com/' });
    expect(await behindProxy.loginUrl('http://127.0.0.1:8787')).toMatch(
      /^https:\/\/gate\.example\.com\/ui\/login\?token=/,
    );
    expect(await createWebChannel({ loginLinks: false }).loginUrl(server.url)).toBeNull();
  });

  it('signs named users in with an scrypt password or a token, and refuses wrong ones alike', async () => {
    const alice = new WebClient(server.url);
    expect((await alice.signIn('alice', 'correct horse battery')).text).toContain('web:alice');
    const bob = new WebClient(server.url);
    expect((await bob.signIn('bob', 'bob-token-0123456789abcdef')).text).toContain('web:bob');
    for (const [name, secret] of [
      ['alice', 'wrong'],
      ['bob', 'bob-token-0123456789abcdeX'],
      ['mallory', 'anything'],
      ['alice', ''],
    ]) {
      const res = await new WebClient(server.url).signIn(name!, secret!);
      expect(res.status, `${name}/${secret}`).toBe(401);
      expect(res.text).toContain('Wrong name, password or token.');
    }
  });

  it('refuses a sign-in form without its CSRF token', async () => {
    const client = new WebClient(server.url);
    await client.request('/ui/login');
    const res = await client.request('/ui/login', {
      form: { name: 'bob', secret: 'bob-token-0123456789abcdef' },
      manual: true,
    });
    expect(res.status).toBe(403);
    expect(res.setCookies.some((c) => c.startsWith('tollgate_session='))).toBe(false);
  });

  it('rejects forged and tampered session cookies', async () => {
    const client = new WebClient(server.url);
    await client.signIn('bob', 'bob-token-0123456789abcdef');
    const real = client.cookies.get('tollgate_session')!;
    const [payload, signature] = real.split('.');
    const claims = Buffer.from(payload!, 'base64url').toString().split('|');
    const forgedPayload = Buffer.from(['alice', claims[1], claims[2]].join('|')).toString('base64url');
    for (const cookie of [
      `${forgedPayload}.${signature}`,
      `${payload}.${signature!.slice(0, -2)}xx`,
      'garbage',
      `${payload}`,
    ]) {
      const forged = new WebClient(server.url);
      forged.cookies.set('tollgate_session', cookie);
      expect((await forged.request('/ui', { manual: true })).status).toBe(303);
    }
    // The same session from another gateway process without the shared secret is not accepted either.
    const other = await startTestServer({
      channels: [createWebChannel({ users: [{ name: 'bob', token: 'bob-token-0123456789abcdef' }] })],
    });
    try {
      const elsewhere = new WebClient(other.url);
      elsewhere.cookies.set('tollgate_session', real);
      expect((await elsewhere.request('/ui', { manual: true })).status).toBe(303);
    } finally {
      await other.close();
    }
  });

  it('ends the session on sign-out, even if the old cookie is replayed', async () => {
    const client = new WebClient(server.url);
    const inbox = await client.signIn('bob', 'bob-token-0123456789abcdef');
    const cookie = client.cookies.get('tollgate_session')!;
    const out = await client.request('/ui/logout', {
      form: { _csrf: formValue(inbox.text, '_csrf') },
      headers: { origin: server.url },
    });
    expect(out.path).toBe('/ui/login');
    const replay = new WebClient(server.url);
    replay.cookies.set('tollgate_session', cookie);
    expect((await replay.request('/ui', { manual: true })).status).toBe(303);
  });

  it('never redirects off-site after signing in', async () => {
    for (const next of ['//evil.example/ui', 'https://evil.example/', '/ui//evil.example', '/\\evil.example', '/uix']) {
      const client = new WebClient(server.url);
      const page = await client.request(`/ui/login?next=${encodeURIComponent(next)}`);
      const res = await client.request('/ui/login', {
        form: { _csrf: formValue(page.text, '_csrf'), name: 'bob', secret: 'bob-token-0123456789abcdef', next },
        manual: true,
      });
      expect(res.headers.get('location'), next).toBe('/ui');
    }
  });

  it('sends security headers that forbid framing, inline scripts and sniffing', async () => {
    const res = await new WebClient(server.url).request('/ui/login');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
