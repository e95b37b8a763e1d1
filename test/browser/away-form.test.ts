/**
 * The away form of the web inbox in real headless Chromium: alice signs in, says she is away with bob standing in
 * for her, is refused a window that ends before it starts (nothing changes), and comes back. What she set is what
 * the API and the gateway's decisions see.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../channels/web/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const ALICE = 'alice-web-token-0123456789';
const CONFIG = `
people:
  - { id: alice, name: Alice Martin, accounts: { web: alice } }
  - { id: bob, name: Bob Stone, accounts: { web: bob } }
`;

describe('the away form in Chromium', () => {
  let server: TestServer;
  let page: Page;
  let browser: TestBrowser | undefined;

  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    browser ??= await launchChromium();
    server = await startTestServer({
      channels: [createWebChannel({ users: [{ name: 'alice', token: ALICE }] })],
      policy: CONFIG,
    });
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
  });
  afterEach(async () => {
    await page?.close();
    await server?.close();
  });

  const status = async () => (await (await server.api('/v1/people/alice/away')).json()) as Record<string, unknown>;

  it('sets an away window with a delegate, refuses one that ends before it starts, and clears it', async () => {
    await page.goto(`${server.url}/ui/login`);
    await page.fill('input[name="name"]', 'alice');
    await page.fill('input[name="secret"]', ALICE);
    await page.click('button[type="submit"]');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui');
    await page.click('nav a[href="/ui/away"]');
    await expect.poll(() => page.locator('#away-now').textContent()).toContain('You are not away');

    const today = new Date(Date.now()).toISOString().slice(0, 10);
    const back = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    // Backwards first: refused, the form keeps what was typed, nothing is recorded.
    await page.fill('#away-form input[name="from"]', back);
    await page.fill('#away-form input[name="until"]', today);
    await page.selectOption('#away-form select[name="delegate"]', 'bob');
    await page.click('#away-form button[type="submit"]');
    await expect.poll(() => page.locator('#away-notice').textContent()).toContain('until: until must be after from');
    expect(await page.inputValue('#away-form input[name="from"]')).toBe(back);
    expect(await status()).toMatchObject({ away: null });

    await page.fill('#away-form input[name="from"]', today);
    await page.fill('#away-form input[name="until"]', back);
    await page.fill('#away-form input[name="note"]', 'Holiday <b>not bold</b>');
    await page.click('#away-form button[type="submit"]');
    await expect.poll(() => page.locator('#away-notice').textContent()).toContain('Saved');
    expect(await page.locator('#away-now').textContent()).toContain('bob stands in for you');
    expect(await page.locator('#away-now b').count()).toBe(0);
    expect(await status()).toMatchObject({
      source: 'database',
      set_by: 'person:alice',
      away: { delegate: 'person:bob', note: 'Holiday <b>not bold</b>', until: `${back}T00:00:00.000Z` },
    });

    // What waits for alice now waits for bob: his inbox has it.
    const filed = await server.api('/v1/requests', {
      body: { tool_name: 'deploy', channels: [{ type: 'web' }], approvers: ['person:alice'] },
    });
    const { id } = (await filed.json()) as { id: string };
    const inbox = (await (await server.api('/v1/inbox?as=person:bob')).json()) as { items: { id: string }[] };
    expect(inbox.items.map((r) => r.id)).toEqual([id]);

    await page.click('#away-clear button');
    await expect.poll(() => page.locator('#away-notice').textContent()).toContain('Welcome back');
    expect(await page.locator('#away-now').textContent()).toContain('You are not away');
    expect(await status()).toMatchObject({ away: null, set_by: 'person:alice' });
    expect(((await (await server.api('/v1/inbox?as=person:bob')).json()) as { items: unknown[] }).items).toEqual([]);
  });
});
