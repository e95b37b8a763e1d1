/**
 * The insights page in real headless Chromium, at desktop and phone width, on a seeded history whose figures are
 * known (`test/contracts/insights-history.ts`): the totals and the tables show them, both charts are drawn by the
 * gateway's own uPlot (no request leaves the origin), every figure opens the audit page filtered to the requests it
 * counts, and nothing is wider than a phone. Saves the screenshots in docs/ with UPDATE_SCREENSHOTS=1.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebChannel, webLoginMessage, type WebChannel } from '../../channels/web/index.js';
import { expectedDays, expectedRows, historySpecs, seedHistory } from '../contracts/insights-history.js';
import { seedSuggestionHistory } from '../contracts/suggestions-history.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const DOCS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'tollgate-shots-'))}/`;
// The seeded days are long past: the gateway expires a still-pending request of them as it reads it.
const specs = historySpecs().filter((s) => s.outcome !== 'pending');
const WINDOW = '?since=2026-03-01&until=2026-03-03';

describe('insights page in Chromium', () => {
  let channel: WebChannel;
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  const foreign: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    channel = createWebChannel();
    server = await startTestServer({ channels: [channel] });
    await seedHistory(server.store, specs);
    await seedSuggestionHistory(server.store);
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    const line = await webLoginMessage(channel, server.url);
    await page.goto(/(http:\/\/\S+\/ui\/login\?token=\S+)/.exec(line ?? '')![1]!);
    await page.waitForURL((url) => url.pathname === '/ui');
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await server?.close();
    await browser?.close();
  });

  const cellTexts = (selector: string) =>
    page
      .locator(selector)
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent!.trim())));

  it("shows the window's totals, both charts and the top tables, at desktop width", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/ui/insights${WINDOW}`);
    // Past days come from the rollup: the page says when it was taken and how close its times are.
    expect(await page.locator('#as-of').textContent()).toMatch(/^Past days as of 20\d\d-\d\d-\d\dT.* within ±1 %\.$/);
    await page.locator('#chart-daily[data-drawn] canvas').waitFor();
    await page.locator('#chart-decision[data-drawn] canvas').waitFor();
    const { totals } = expectedDays(specs);
    expect(await page.locator('#totals .figure').allTextContents()).toEqual(
      [totals.requests, totals.approved, totals.denied, totals.expired, totals.cancelled, 0].map(String),
    );
    const tools = expectedRows(specs, 'tool');
    expect((await cellTexts('#top-tool tbody tr')).map((cells) => cells.slice(0, 5))).toEqual(
      tools.map((r) => [r.key, r.requests, r.approved, r.denied, r.expired].map(String)),
    );
    const approvers = expectedRows(specs, 'person').filter((r) => r.key !== null);
    const shown = (await cellTexts('#top-person tbody tr')).filter((cells) => !cells[0]!.startsWith('('));
    expect(shown.map((cells) => [cells[0], cells[9]])).toEqual(
      approvers.map((r) => [r.key, `${Math.round(r.fast_approvals! * 100)}%`]),
    );
    expect(foreign).toEqual([]);
    await page.screenshot({ path: `${DOCS}insights.png`, fullPage: true });
  });

  it('opens the audit page filtered to the requests a figure counts', async () => {
    await page.goto(`${server.url}/ui/insights${WINDOW}`);
    const deploy = expectedRows(specs, 'tool').find((r) => r.key === 'deploy')!;
    await page.locator('#top-tool a', { hasText: 'deploy' }).first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui/audit');
    expect(new URL(page.url()).searchParams.get('tool')).toBe('deploy');
    expect(await page.locator('table.audit tbody tr').count()).toBe(deploy.requests);
    await page.goto(`${server.url}/ui/insights${WINDOW}`);
    await page.locator('#totals .denied a').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('denied');
    expect(await page.locator('table.audit tbody tr').count()).toBe(expectedDays(specs).totals.denied);
  });

  it('fits a phone: nothing wider than the screen, the charts drawn at its width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/ui/insights${WINDOW}`);
    await page.locator('#chart-daily[data-drawn] canvas').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const chartWidth = await page.locator('#chart-daily .uplot').evaluate((el) => el.getBoundingClientRect().width);
    expect(chartWidth).toBeGreaterThan(200);
    expect(chartWidth).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${DOCS}insights-phone.png`, fullPage: true });
  });

  it('lists the suggested rules of a window, each with its YAML and the denied call it does not cover', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/ui/insights?since=2026-04-01&until=2026-04-07`);
    await page.locator('#suggestions-link').click();
    await page.waitForURL((url) => url.pathname === '/ui/insights/suggestions');
    expect(await page.locator('li.suggestion h2').allTextContents()).toEqual([
      'ops calling Bash with command = "npm test"',
      'ops calling Bash with command starting "git status"',
    ]);
    expect(await page.locator('li.suggestion pre').first().textContent()).toContain('decision: allow');
    await page.locator('li.suggestion a[href^="/ui/requests/"]').first().click();
    await page.waitForURL((url) => url.pathname.startsWith('/ui/requests/'));
    expect(await page.content()).toContain('git push --force origin main');
    await page.goto(`${server.url}/ui/insights/suggestions?since=2026-04-01&until=2026-04-07&min=13`);
    await page.locator('#no-suggestions').waitFor();
  });

  it('refuses a window that is not a date, naming the field', async () => {
    const res = await page.goto(`${server.url}/ui/insights?since=yesterday`);
    expect(res?.status()).toBe(400);
    expect(await page.locator('.notice.bad').textContent()).toContain('since');
  });
});
