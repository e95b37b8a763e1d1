/**
 * A gateway configured for OpenID sign-in the way an operator does it (`TOLLGATE_OIDC_*`, `TOLLGATE_PUBLIC_URL`, a
 * YAML file with `people:` and `web:`), in front of the real provider of `provider.ts`, plus a walker that takes a
 * cookie-keeping client through the provider's login page as a person would.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ManualClock } from '../../../src/utils/clock.js';
import { loadConfig } from '../../../src/config.js';
import { createServer, type TollgateServer } from '../../../src/server.js';
import type { WebClient, WebResponse } from '../../integration/web/web-client.js';
import { reservePort, startOidcProvider, type FakeAccount, type FakeProvider } from './provider.js';

/** The client the gateway is registered as. */
export const CLIENT = { clientId: 'tollgate-web', clientSecret: 'tollgate-web-secret-0123456789' };
/** A second client of the same provider: another audience. */
export const OTHER_CLIENT = { clientId: 'other-app', clientSecret: 'other-app-secret-0123456789abc' };

/** A running provider and gateway. */
export interface OidcHarness {
  provider: FakeProvider;
  server: TollgateServer;
  url: string;
  clock: ManualClock;
  /** Every log line the gateway wrote, parsed. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Options of {@link startOidcHarness}. */
export interface OidcHarnessOptions {
  accounts: FakeAccount[];
  /** The YAML file (people, groups, `web:`). */
  yaml?: string;
  env?: Record<string, string>;
  idTokenTtlS?: number;
}

/** Starts the provider, then the gateway on a port reserved first (the provider must know the redirect URI). */
export async function startOidcHarness(options: OidcHarnessOptions): Promise<OidcHarness> {
  const reserved = await reservePort();
  const port = reserved.port;
  const url = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider({
    accounts: options.accounts,
    idTokenTtlS: options.idTokenTtlS,
    clients: [
      { ...CLIENT, redirectUris: [`${url}/ui/auth/callback`], postLogoutRedirectUris: [`${url}/ui/login`] },
      { ...OTHER_CLIENT, redirectUris: [`${url}/ui/auth/callback`] },
    ],
  }).catch(async (error: unknown) => {
    await reserved.release();
    throw error;
  });
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-oidc-'));
  const env: Record<string, string> = {
    TOLLGATE_API_TOKENS: 'test-token',
    TOLLGATE_PUBLIC_URL: url,
    TOLLGATE_OIDC_ISSUER: provider.issuer,
    TOLLGATE_OIDC_CLIENT_ID: CLIENT.clientId,
    TOLLGATE_OIDC_CLIENT_SECRET: CLIENT.clientSecret,
    ...options.env,
  };
  if (options.yaml !== undefined) {
    env.TOLLGATE_CONFIG = join(dir, 'tollgate.yaml');
    writeFileSync(env.TOLLGATE_CONFIG, options.yaml);
  }
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const clock = new ManualClock(Date.now());
  let server: TollgateServer;
  try {
    server = await createServer({
      config: loadConfig({ port, db: join(dir, 'tollgate.db') }, env),
      logger: pino({ level: 'info' }, sink),
      clock,
    });
  } catch (error) {
    await reserved.release();
    await provider.close();
    throw error;
  }
  // Released only now, so nothing else took the port while the provider and the gateway were built.
  await reserved.release();
  await server.listen();
  return {
    provider,
    server,
    url,
    clock,
    logs,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}

/**
 * Walks `browser` from `start` through the provider's login (as `login`) and consent pages. Stops at the gateway's
 * callback without visiting it when `stopAtCallback` (returning its URL), else follows it and returns the last page.
 */
export async function walkProvider(
  browser: WebClient,
  start: string,
  login: string,
  stopAtCallback = false,
): Promise<{ callback: URL | null; page: WebResponse }> {
  let url = new URL(start, browser.baseUrl);
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const page = await browser.request(url.href, { manual: true, form });
    form = undefined;
    const location = page.headers.get('location');
    if (page.status >= 300 && page.status < 400 && location) {
      const next = new URL(location, url);
      if (stopAtCallback && next.pathname === '/ui/auth/callback') return { callback: next, page };
      url = next;
      continue;
    }
    // The provider's development pages: a login form (any password), then perhaps a consent form.
    const prompt = /name="prompt" value="([^"]+)"/.exec(page.text)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
    if (!prompt || !action) return { callback: null, page };
    form = prompt === 'login' ? { prompt, login, password: 'not checked' } : { prompt };
    url = new URL(action.replace(/&amp;/g, '&'), url);
  }
  throw new Error(`no way through the provider from ${start}`);
}
