/**
 * Call summaries on the web, in real headless Chromium: the inbox shows each request's risk and first lines, the
 * request page shows every file's diff highlighted by diff2html (its stylesheet loaded there only), the programs of a
 * risky pipeline and the statements of a SQL delete, with no secret from a diff; readable on a phone. Saves the
 * screenshots docs/summaries.md shows (with UPDATE_SCREENSHOTS=1; else to a temp dir).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel, webLoginMessage, type WebChannel } from '../../channels/web/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE } from '../helpers/summary-calls.js';
import { launchChromium, type TestBrowser } from './chromium.js';

const DOCS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'tollgate-shots-'))}/`;

describe('call summaries in Chromium', () => {
  let channel: WebChannel;
  let server: TestServer;
  let page: Page;
  let browser: TestBrowser | undefined;
  const ids: Record<'edit' | 'shell' | 'sql', string> = { edit: '', shell: '', sql: '' };

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    browser ??= await launchChromium();
    channel = createWebChannel();
    server = await startTestServer({ channels: [channel] });
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const line = await webLoginMessage(channel, server.url);
    await page.goto(/(http:\/\/\S+\/ui\/login\?token=\S+)/.exec(line ?? '')![1]!);
    for (const [name, call] of [
      ['sql', SQL_DELETE],
      ['shell', RISKY_PIPELINE],
      ['edit', MULTI_FILE_EDIT],
    ] as const) {
      const res = await server.api('/v1/requests', {
        body: { ...call, agent_id: name === 'edit' ? 'codex' : 'claude-code', channels: [{ type: 'web' }] },
      });
      expect(res.status).toBe(201);
      ids[name] = ((await res.json()) as { id: string }).id;
    }
  });

  afterEach(async () => {
    await page?.close();
    await server?.close();
  });

  async function open(id: string): Promise<void> {
    await page.goto(`${server.url}/ui/requests/${id}`);
    await page.locator('#decision-form').waitFor();
  }

  it('shows risk and first lines in the inbox, and the whole summary with highlighted diffs on the request page', async () => {
    await page.goto(`${server.url}/ui`);
    const edit = page.locator(`li[data-request-id="${ids.edit}"]`);
    expect(await edit.locator('.risk').textContent()).toBe('High risk');
    expect(await edit.textContent()).toContain('Changes 3 files: +12 −1');
    expect(await page.locator(`li[data-request-id="${ids.sql}"]`).textContent()).toContain('DELETE customers');
    // diff2html's stylesheet is the request page's alone.
    expect(await page.locator('link[href="/ui/assets/diff2html.css"]').count()).toBe(0);
    await page.screenshot({ path: `${DOCS}summary-inbox.png`, fullPage: true });

    await open(ids.edit);
    expect(await page.locator('link[href="/ui/assets/diff2html.css"]').count()).toBe(1);
    const summary = page.locator('#call-summary');
    expect(await summary.locator('.d2h-file-wrapper').count()).toBe(2);
    expect(await summary.locator('.d2h-ins').count()).toBeGreaterThanOrEqual(12);
    expect(await summary.textContent()).toContain(
      '../shared/legacy-billing.ts  +0 −0 (deleted, outside the working directory)',
    );
    // The stylesheet applies: added lines are tinted.
    const tint = await summary
      .locator('td.d2h-ins')
      .first()
      .evaluate(
        (td) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(td)
            .backgroundColor,
      );
    expect(tint).not.toBe('rgba(0, 0, 0, 0)');
    // Masked in the diff and in the arguments shown (the editor, folded away, keeps the value it would send back).
    for (const shown of ['#call-summary', '#tool-args'])
      expect(await page.locator(shown).textContent()).not.toContain(EDIT_SECRET);
    await page.screenshot({ path: `${DOCS}summary-edit.png`, fullPage: true });

    await open(ids.shell);
    expect(await page.locator('#call-summary').textContent()).toContain(
      'git push --force origin main  [history rewrite, network]',
    );
    await page.screenshot({ path: `${DOCS}summary-shell.png`, fullPage: true });

    await open(ids.sql);
    expect(await page.locator('#call-summary .reasons').textContent()).toContain(
      'Updates or deletes every row (no WHERE): customers',
    );
    await page.screenshot({ path: `${DOCS}summary-sql.png`, fullPage: true });
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/ui`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${DOCS}summary-inbox-phone.png`, fullPage: true });
    for (const name of ['edit', 'shell', 'sql'] as const) {
      await open(ids[name]);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.screenshot({ path: `${DOCS}summary-${name}-phone.png`, fullPage: true });
    }
  });
});
