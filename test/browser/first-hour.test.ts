/**
 * What a newcomer meets in the first hour, in real headless Chromium at desktop (1,280 px) and phone (390 px) width:
 * the address `tollgate serve` prints lands on the inbox, a reason typed before pressing Approve is kept, a coding
 * agent's card names the command it wants to run, the audit page reads on a phone without sideways scrolling, and the
 * insights page shows a single day's time to decision, keeps Denied visible beside Expired, and its totals add up.
 * Saves `docs/audit-phone.png` with UPDATE_SCREENSHOTS=1.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebChannel, webLoginMessage, type WebChannel } from '../../channels/web/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const DOCS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'tollgate-shots-'))}/`;

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe('the first hour in Chromium', () => {
  let channel: WebChannel;
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    channel = createWebChannel();
    server = await startTestServer({ channels: [channel] });
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    // Signed in before any test: they run in any order, and the first one signs in again from nothing.
    await signIn();
  }, 60_000);
  afterAll(async () => {
    await page?.close();
    await server?.close();
    await browser?.close();
  });

  async function file(body: Record<string, unknown>): Promise<string> {
    const res = await server.api('/v1/requests', { body: { channels: [{ type: 'web' }], ...body } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  /** Files a request and denies it at once as web:admin. */
  async function fileDenied(body: Record<string, unknown>, reason: string): Promise<void> {
    const requestId = await file(body);
    await server.gateway.decide({ requestId, decision: 'deny', reason, actor: { channel: 'web', userId: 'admin' } });
  }

  const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth');

  /** Opens a fresh one-time sign-in link, as `serve` prints it, and waits for the inbox. */
  async function signIn(): Promise<void> {
    const line = await webLoginMessage(channel, server.url);
    await page.goto(/(http:\/\/\S+\/ui\/login\?token=\S+)/.exec(line ?? '')![1]!);
    await page.waitForURL((url) => url.pathname === '/ui');
  }

  it('lands on the sign-in page, then on the inbox, from the address serve prints', async () => {
    await browser.context.clearCookies();
    const anonymous = await page.request.get(`${server.url}/`, { maxRedirects: 0 });
    expect(anonymous.status()).toBe(302);
    expect(anonymous.headers().location).toBe('/ui');
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe('/ui/login');
    await signIn();
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe('/ui');
    expect(await page.locator('h1').textContent()).toBe('Inbox');
  });

  for (const size of WIDTHS) {
    describe(`at ${size.width} px`, () => {
      beforeAll(async () => {
        await page.setViewportSize({ width: size.width, height: size.height });
      });

      it('keeps the reason typed before pressing Approve', async () => {
        const id = await file({ tool_name: 'pay_invoice', tool_args: { invoice: 'INV-7', amount: 1200 } });
        await page.goto(`${server.url}/ui/requests/${id}`);
        await page.locator('#decision-form textarea[name=reason]').fill('matches the PO');
        expect(await overflow()).toBeLessThanOrEqual(size.width);
        await page.locator('#approve-button').click();
        await page.locator('.notice.good').waitFor();
        expect(await (await server.api(`/v1/requests/${id}`)).json()).toMatchObject({
          status: 'approved',
          reason: 'matches the PO',
          responded_by: 'web:admin',
        });
        // The outcome's time reads as the page's other times do.
        expect(await page.locator('#live-status').textContent()).toMatch(
          /Approved by web:admin at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC — "matches the PO"/,
        );
      });

      it("names a coding agent's command on the request page and in the inbox", async () => {
        const command = `terraform apply -auto-approve -target=${size.name}`;
        const id = await file({
          tool_name: 'Bash',
          tool_args: { command },
          agent_kind: 'codex',
          context: { repo: 'acme/billing', branch: 'main' },
        });
        await page.goto(`${server.url}/ui/requests/${id}`);
        expect(await page.locator('.card .prompt').first().textContent()).toBe(
          `Codex in acme/billing on main wants to run ${command}.`,
        );
        expect(await page.content()).not.toContain('wants to run `Bash`');
        await page.goto(`${server.url}/ui?view=all`);
        const item = page.locator(`li[data-request-id="${id}"]`);
        expect(await item.locator('.prompt').textContent()).toContain(command);
        expect(await item.textContent()).not.toContain('wants to run Bash');
        expect(await overflow()).toBeLessThanOrEqual(size.width);
      });

      it('shows the audit table without sideways scrolling, badges whole and dates on one line', async () => {
        await fileDenied(
          { tool_name: 'deploy_service', agent_id: 'ops-bot', tool_args: { env: 'prod' } },
          'change freeze until Monday',
        );
        await page.goto(`${server.url}/ui/audit`);
        const row = page.locator('table.audit tbody tr').first();
        await row.waitFor();
        expect(await overflow()).toBeLessThanOrEqual(size.width);
        const wrap = await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth);
        expect(wrap, 'the table scrolls sideways inside its box').toBe(0);
        const badge = await row.locator('.badge').boundingBox();
        const viewport = page.viewportSize()!;
        expect(badge!.x + badge!.width).toBeLessThanOrEqual(viewport.width);
        const badgeBox = await row.locator('.badge').evaluate((el) => [el.scrollWidth, el.clientWidth]);
        expect(badgeBox[0]).toBeLessThanOrEqual(badgeBox[1]!);
        const lines = await row.locator('time').evaluate((el) => {
          const { height } = el.getBoundingClientRect();
          return Math.round(height / parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).lineHeight));
        });
        expect(lines, 'the filed date wraps').toBe(1);
        expect(await row.textContent()).toContain('change freeze until Monday');
        if (size.name === 'phone') await page.screenshot({ path: `${DOCS}audit-phone.png`, fullPage: true });
      });

      it("draws a single day's time to decision, Denied beside Expired, and totals that add up", async () => {
        // Today: one denied, one expired (cancelled would not count), and one still pending. Filed here, not left to
        // the tests before it in the file: shuffled, this one may run first.
        await fileDenied(
          { tool_name: 'drop_table', agent_id: 'ops-bot', tool_args: { table: 'audit' } },
          'not the audit table',
        );
        const expired = await file({ tool_name: 'rotate_keys', tool_args: {}, timeout_s: 1 });
        await file({ tool_name: 'still_waiting', tool_args: {} });
        await expect
          .poll(
            async () => ((await (await server.api(`/v1/requests/${expired}`)).json()) as { status: string }).status,
            {
              timeout: 15_000,
            },
          )
          .toBe('expired');
        await page.goto(`${server.url}/ui/insights`);
        await page.locator('#chart-decision[data-drawn] canvas').waitFor();
        await page.locator('#chart-daily[data-drawn] canvas').waitFor();
        expect(await overflow()).toBeLessThanOrEqual(size.width);

        const figures = Object.fromEntries(
          await page
            .locator('#totals .total')
            .evaluateAll((cards) =>
              cards.map((c) => [c.classList[2]!, Number(c.querySelector('.figure')!.textContent!.trim())]),
            ),
        ) as Record<string, number>;
        expect(figures.pending).toBeGreaterThanOrEqual(1);
        expect(figures.approved! + figures.denied! + figures.expired! + figures.cancelled! + figures.pending!).toBe(
          figures.requests,
        );

        /** How many of the chart's pixels are painted in the page's CSS colour `name`. */
        const painted = (chart: string, name: string) =>
          page.locator(`${chart} canvas`).evaluate((element, variable: string) => {
            const canvas = element as unknown as {
              width: number;
              height: number;
              getContext(
                kind: '2d',
              ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
            };
            const doc = element.ownerDocument;
            const probe = doc.createElement('span');
            probe.style.color = `var(${variable})`;
            doc.body.append(probe);
            const [r, g, b] = doc.defaultView!.getComputedStyle(probe).color.match(/\d+/g)!.map(Number);
            probe.remove();
            const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
            let n = 0;
            for (let i = 0; i < data.length; i += 4) {
              if (Math.abs(data[i]! - r!) < 8 && Math.abs(data[i + 1]! - g!) < 8 && Math.abs(data[i + 2]! - b!) < 8)
                n++;
            }
            return n;
          }, name);
        expect(await painted('#chart-decision', '--accent'), "today's p50 point").toBeGreaterThan(20);
        expect(await painted('#chart-daily', '--bad'), 'the Denied line').toBeGreaterThan(20);
        expect(await painted('#chart-daily', '--wait'), 'the Expired line').toBeGreaterThan(20);
      });
    });
  }
});
