/**
 * An approval link in real headless Chromium: opening it (as a person, or a scanner's headless browser) only shows
 * the confirmation page; typing a reason and pressing Deny posts the form (same origin, its cookie and CSRF token)
 * and shows the verdict; opening the link again says the request is decided, with no form.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { local, OPS } from '../fakes/email/harness.js';
import { startEmailGateway, type EmailGateway } from '../integration/email/setup.js';
import { launchChromium, type TestBrowser } from './chromium.js';

describe('email links in Chromium', () => {
  let browser: TestBrowser | undefined;
  let env: EmailGateway | undefined;
  let page: Page | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  afterEach(async () => {
    await page?.close();
    await env?.close();
  });

  it('shows the page, decides only on the button, then says the request is decided', async () => {
    browser ??= await launchChromium();
    env = await startEmailGateway();
    const request = await env.file({ tool_args: { service: 'billing', note: '<img src=x onerror=document.title=1>' } });
    const [, deny] = env.email.mailFor(request).links;
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);

    await page.goto(local(env.server, deny!));
    await expect.poll(() => page!.locator('h1').textContent()).toBe('Deny deploy_service?');
    expect(await page.locator('pre').textContent()).toContain('<img src=x onerror=document.title=1>');
    expect(await page.title()).not.toBe('1');
    expect((await env.get(request.id)).status).toBe('pending');

    await page.fill('textarea[name=reason]', 'wrong service');
    await page.click('button[type=submit]');
    await expect.poll(() => page!.locator('h1').textContent()).toBe('Denied: deploy_service');
    expect(await env.get(request.id)).toMatchObject({
      status: 'denied',
      reason: 'wrong service',
      respondedBy: `email:${OPS}`,
    });

    await page.goto(local(env.server, deny!));
    await expect.poll(() => page!.locator('h1').textContent()).toBe('This request is already decided');
    expect(await page.locator('form').count()).toBe(0);
  });
});
