/**
 * OpenID sign-in and the people-aware inbox in real headless Chromium, against a real provider (oidc-provider): the
 * sign-in page's button, the provider's login page, back to the inbox as a person of the directory; then two people
 * and a group — a request for the group shows up live in Alice's "waiting for me" with the count in the tab title,
 * and leaves it, title and all, when Bob decides it. Saves the sign-in page's screenshot in docs/.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOidcHarness, walkProvider, type OidcHarness } from '../fakes/oidc/harness.js';
import { WebClient } from '../integration/web/web-client.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const DOCS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'tollgate-shots-'))}/`;

const YAML = `
people:
  - { id: alice, name: Alice Martin, email: alice@example.com }
  - { id: bob, name: Bob Stone, email: bob@example.com }
groups:
  finance-leads: [alice, bob]
`;
const ACCOUNTS = [
  { id: 'alice', email: 'alice@example.com', name: 'Alice Martin' },
  { id: 'bob', email: 'bob@example.com', name: 'Bob Stone' },
];

describe('OpenID sign-in and the people-aware inbox in Chromium', () => {
  let harness: OidcHarness;
  let page: Page;
  let browser: TestBrowser | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    browser ??= await launchChromium();
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    // The provider's development pages import a web font; this machine has no network beyond 127.0.0.1.
    await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  });

  afterEach(async () => {
    await page?.close();
    await harness?.close();
  });

  /** From the sign-in page through the provider's login (and consent, when asked) back to the inbox. */
  async function signIn(login: string): Promise<void> {
    await page.goto(`${harness.url}/ui`);
    expect(new URL(page.url()).pathname).toBe('/ui/login');
    await page.click('#sso');
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('not checked by the development provider');
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.origin === harness.url || url.pathname.startsWith('/interaction/'));
    if (new URL(page.url()).origin !== harness.url) await page.locator('button[type="submit"]').click();
    await page.waitForURL(`${harness.url}/ui`);
    await page.locator('body[data-stream="open"]').waitFor();
  }

  it('signs in through the provider with the sign-in page’s button, and out again', async () => {
    await page.goto(`${harness.url}/ui/login`);
    await page.screenshot({ path: `${DOCS}oidc-sign-in.png` });
    await signIn('alice');
    expect(await page.locator('nav.top .who').textContent()).toBe('Alice Martin (alice@example.com)');
    expect(await page.title()).toBe('Inbox · tollgate');
    await page.click('nav.top button:has-text("Sign out")');
    // Off to the provider's sign-out, which asks to confirm; tollgate's session is already gone.
    await page.waitForURL((url) => url.origin === harness.provider.issuer);
    const back = await page.context().request.get(`${harness.url}/ui`, { maxRedirects: 0 });
    expect(back.headers().location).toMatch(/^\/ui\/login/);
  });

  it('shows a request for the group live in Alice’s "waiting for me", counted in the tab title, until Bob decides it', async () => {
    await signIn('alice');
    const { gateway } = harness.server;
    const { request } = await gateway.request({
      toolName: 'Bash',
      toolArgs: { command: 'terraform apply -auto-approve', workdir: 'infra/prod' },
      approvers: ['group:finance-leads'],
      timeoutS: 600,
    });
    const item = page.locator(`li[data-request-id="${request.id}"]`);
    await item.waitFor();
    // A shell call shows its summary's lines in the list (the command it runs) rather than its raw arguments.
    expect(await item.locator('.summary').textContent()).toContain('terraform apply -auto-approve');
    expect(await item.locator('.prompt code').textContent()).toBe('Bash');
    await expect.poll(() => page.title()).toBe('(1) Inbox · tollgate');
    await page.screenshot({ path: `${DOCS}inbox-waiting.png` });

    const bob = new WebClient(harness.url);
    await walkProvider(bob, '/ui/auth/login', 'bob');
    await bob.decide(request.id, { decision: 'approve' });
    expect((await gateway.get(request.id))?.respondedByPerson).toBe('bob');
    await item.waitFor({ state: 'detached' });
    await expect.poll(() => page.title()).toBe('Inbox · tollgate');
    await page.click('a:has-text("I decided")');
    expect(await page.locator('#inbox-count').textContent()).toBe('You have not decided any request yet.');
  });
});
