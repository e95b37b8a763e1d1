// Sign-in guessing is throttled per name and per address (429 + Retry-After, even for the right secret while blocked),
// on the gateway's clock, and every failure and block is logged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel, hashPassword } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../web/web-client.js';

let server: TestServer;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  const channel = createWebChannel({
    users: [{ name: 'alice', passwordHash: await hashPassword('correct horse battery', 1024) }],
  });
  server = await startTestServer({ channels: [channel], clock });
});
afterEach(async () => {
  await server.close();
});

describe('sign-in rate limit', () => {
  it('blocks a name after 5 failures until the window ends, then lets the right password in', async () => {
    const web = new WebClient(server.url);
    for (let i = 0; i < 5; i++) expect((await web.signIn('alice', `guess-${i}`)).status).toBe(401);
    const blocked = await web.signIn('alice', 'correct horse battery');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.text).toContain('Too many failed sign-ins');

    await clock.advance(15 * 60_000);
    const ok = await web.signIn('alice', 'correct horse battery');
    expect(ok.status).toBe(200);
    expect(ok.path).toBe('/ui');
  });

  it('blocks an address after 20 failures across names, and bad login links count too', async () => {
    const web = new WebClient(server.url);
    for (let i = 0; i < 19; i++) expect((await web.signIn(`user${i}`, 'x')).status).toBe(401);
    expect((await web.request('/ui/login?token=not-a-real-link')).status).toBe(401);
    expect((await web.signIn('alice', 'correct horse battery')).status).toBe(429);
  });
});
