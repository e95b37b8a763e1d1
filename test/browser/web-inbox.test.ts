/**
 * The web inbox in real headless Chromium: sign in through the printed one-time link, watch a request arrive live,
 * approve it while an API caller long-polls, deny with a reason, approve edited arguments, see an XSS payload as
 * plain text, and have a cross-site form post rejected. Saves the screenshots in docs/.
 */
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel, webLoginMessage, type WebChannel } from '../../channels/web/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchChromium, type TestBrowser } from './chromium.js';

// Screenshots go to docs/ with UPDATE_SCREENSHOTS=1 (to refresh the README's pictures), else to a temp dir, so
// ordinary test runs leave the tree clean.
const DOCS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'tollgate-shots-'))}/`;

describe('web inbox in Chromium', () => {
  let channel: WebChannel;
  let server: TestServer;
  let page: Page;

  let browser: TestBrowser | undefined;

  // One browser (with its fresh profile) per file, launched by the first test: without Chromium every test fails
  // with what to install, instead of being skipped. Every test gets a new gateway, no cookies, and a new tab.
  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    browser ??= await launchChromium();
    channel = createWebChannel();
    server = await startTestServer({ channels: [channel] });
    await browser.context.clearCookies();
    page = await browser.context.newPage();
    // Fail with the step that got stuck rather than the test's own timeout.
    page.setDefaultTimeout(10_000);
    page.on('dialog', (dialog) => {
      throw new Error(`unexpected dialog: ${dialog.message()}`);
    });
  });

  afterEach(async () => {
    // The tab first: its open event stream would otherwise hold the server's shutdown.
    await page?.close();
    await server?.close();
  });

  /** Signs in with the line `tollgate serve` prints and waits until the page listens for changes. */
  async function signIn(): Promise<void> {
    const line = await webLoginMessage(channel, server.url);
    const link = /(http:\/\/\S+\/ui\/login\?token=\S+)/.exec(line ?? '')?.[1];
    expect(link, `login line: ${line}`).toBeDefined();
    await page.goto(link!);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/ui');
    await page.locator('body[data-stream="open"]').waitFor();
  }

  async function file(body: Record<string, unknown>): Promise<{ id: string }> {
    const res = await server.api('/v1/requests', { body: { channels: [{ type: 'web' }], ...body } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string };
  }

  async function openRequest(id: string): Promise<void> {
    await page.goto(`${server.url}/ui/requests/${id}`);
    await page.locator('#decision-form').waitFor();
  }

  it('turns anonymous visitors to the sign-in page, and the printed link works only once', async () => {
    const { id } = await file({ tool_name: 'deploy_service', tool_args: { service: 'billing' } });
    await page.goto(`${server.url}/ui/requests/${id}`);
    expect(new URL(page.url()).pathname).toBe('/ui/login');
    expect(await page.content()).not.toContain('billing');

    const link = /(http:\S+)/.exec((await webLoginMessage(channel, server.url))!)![1]!;
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/ui');
    await page.context().clearCookies();
    await page.goto(link);
    expect(await page.locator('[role=alert]').textContent()).toContain('already used');
  });

  it('shows a request live, approves it, and the waiting API caller resumes; it leaves the inbox', async () => {
    await signIn();
    await file({
      tool_name: 'pay_invoice',
      tool_args: { invoice: 'INV-2291', amount: 1200, currency: 'EUR' },
      agent_id: 'billing-agent',
      user_id: 'U0456',
      prompt: 'Pay invoice INV-2291 (1,200 EUR) to ACME GmbH?',
    });
    await file({
      tool_name: 'delete_records',
      tool_args: { table: 'customers', where: { inactive_days: { gt: 730 } } },
      agent_id: 'ops-bot',
      prompt: 'Delete customers inactive for two years?',
    });
    const { id } = await file({
      tool_name: 'deploy_service',
      tool_args: {
        service: 'billing',
        version: '1.4.2',
        environment: 'production',
        api_token: 'sk-live-should-not-show',
      },
      agent_id: 'ops-bot',
      user_id: 'U0123',
      prompt: 'Deploy billing 1.4.2 to production?',
    });
    const item = page.locator(`li[data-request-id="${id}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('Deploy billing 1.4.2 to production?');
    await page.screenshot({ path: `${DOCS}inbox.png`, fullPage: true });

    const waiting = server.api(`/v1/requests/${id}?wait=30`).then((r) => r.json() as Promise<Record<string, unknown>>);
    await item.locator('a.button').click();
    await page.locator('#decision-form').waitFor();
    const args = await page.locator('#tool-args').textContent();
    expect(args).toContain('"version": "1.4.2"');
    expect(args).not.toContain('sk-live');
    await page.locator('#approve-button').click();
    await page.locator('.notice.good').waitFor();

    const verdict = await waiting;
    expect(verdict).toMatchObject({
      id,
      status: 'approved',
      allowed: true,
      responded_by: 'web:admin',
      responded_via: 'web',
    });
    expect(await page.locator('#decision-form').count()).toBe(0);
    expect(await page.locator('#timeline').textContent()).toContain('approved');

    await page.goto(`${server.url}/ui`);
    await page.locator('body[data-stream="open"]').waitFor();
    expect(await page.locator(`li[data-request-id="${id}"]`).count()).toBe(0);
    // Decided elsewhere (the API): the row leaves the open inbox without a reload.
    const other = page.locator('li[data-request-id]').first();
    const otherId = (await other.getAttribute('data-request-id'))!;
    const decided = await server.api(`/v1/requests/${otherId}/decision`, {
      body: { decision: 'deny', approver: 'api:ops', reason: 'not today' },
    });
    expect(decided.status).toBe(200);
    await page.locator(`li[data-request-id="${otherId}"]`).waitFor({ state: 'detached' });
  });

  it('denies with a reason', async () => {
    await signIn();
    const { id } = await file({ tool_name: 'drop_table', tool_args: { table: 'orders' } });
    await openRequest(id);
    await page.locator('#decision-form textarea[name=reason]').fill('not on a Friday');
    await page.locator('#deny-button').click();
    await page.locator('.notice.good').waitFor();
    const res = await server.api(`/v1/requests/${id}`);
    expect(await res.json()).toMatchObject({
      status: 'denied',
      allowed: false,
      reason: 'not on a Friday',
      responded_by: 'web:admin',
    });
    expect(await page.locator('#live-status').textContent()).toContain('not on a Friday');
  });

  it('approves edited arguments after rejecting invalid JSON, keeping secrets it never showed', async () => {
    await signIn();
    const { id } = await file({
      tool_name: 'send_email',
      tool_args: { to: 'all@corp.example', subject: 'Hi', smtp_password: 'hunter2-secret' },
    });
    await openRequest(id);
    await page.locator('details summary').click();
    const editor = page.locator('#edit-form textarea');
    expect(await editor.inputValue()).not.toContain('hunter2');
    await editor.fill('{"to": "team@corp.example",');
    await page.locator('#edit-form button').click();
    expect(await page.locator('#edit-error').textContent()).toContain('not valid JSON');
    expect(((await (await server.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');

    const edited = JSON.parse((await editor.inputValue()).replace(/,$/, '}')) as Record<string, unknown>;
    expect(edited).toEqual({ to: 'team@corp.example' });
    await editor.fill(JSON.stringify({ to: 'team@corp.example', subject: 'Hi', smtp_password: '••••' }, null, 2));
    await page.locator('#edit-form input[name=reason]').fill('only the team');
    await page.locator('#edit-form button').click();
    await page.locator('.notice.good').waitFor();
    const verdict = await (await server.api(`/v1/requests/${id}`)).json();
    expect(verdict).toMatchObject({
      status: 'approved',
      tool_args: { to: 'all@corp.example', subject: 'Hi', smtp_password: 'hunter2-secret' },
      approved_args: { to: 'team@corp.example', subject: 'Hi', smtp_password: 'hunter2-secret' },
      reason: 'only the team',
    });
    expect(await page.locator('#approved-args').textContent()).toContain('team@corp.example');
  });

  it('masks a token inside a command in the editor and the raw view, and runs the real one when left as shown', async () => {
    await signIn();
    const token = 'sk-live-0123456789abcdef';
    const command = `curl -H "Authorization: Bearer ${token}" https://api.example.com/v1/charges`;
    const { id } = await file({ tool_name: 'Bash', tool_args: { command, description: 'List charges' } });
    await openRequest(id);
    expect(await page.content()).not.toContain(token);
    await page.locator('details summary').click();
    const editor = page.locator('#edit-form textarea');
    const shown = JSON.parse(await editor.inputValue()) as Record<string, string>;
    expect(shown.command).toBe('curl -H "Authorization: ••••" https://api.example.com/v1/charges');
    await editor.fill(JSON.stringify({ ...shown, description: 'List the charges' }, null, 2));
    await page.locator('#edit-form button').click();
    await page.locator('.notice.good').waitFor();
    expect(await (await server.api(`/v1/requests/${id}`)).json()).toMatchObject({
      status: 'approved',
      approved_args: { command, description: 'List the charges' },
    });
    await page.goto(`${server.url}/ui/requests/${id}/raw`);
    expect(await page.content()).not.toContain(token);
  });

  it('shows an XSS payload in the arguments as text and never runs it', async () => {
    await signIn();
    const payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
    const { id } = await file({
      tool_name: 'run_shell',
      tool_args: { cmd: payload },
      prompt: `Run ${payload}?`,
      agent_id: '"><svg onload=window.__xss=3>',
    });
    await page.locator(`li[data-request-id="${id}"]`).waitFor();
    await openRequest(id);
    expect(await page.locator('#tool-args').textContent()).toContain('<img src=x onerror=\\"window.__xss=1\\">');
    expect(await page.locator('.prompt').first().textContent()).toContain('<script>window.__xss=2</script>');
    expect(await page.locator('main img, main svg, main script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
  });

  it('rejects a form posted from another origin and changes nothing', async () => {
    await signIn();
    const { id } = await file({ tool_name: 'transfer_funds', tool_args: { amount: 1_000_000 } });
    await openRequest(id);
    const nonce = (await page.locator('#decision-form input[name=nonce]').getAttribute('value'))!;
    // Another origin (same host, other port: the browser still sends the Lax cookie) auto-posts the approve form.
    const evil: Server = createHttpServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${server.url}/ui/requests/${id}/decision">
        <input name="decision" value="approve"><input name="nonce" value="${nonce}"></form>
        <script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const answer = page.waitForResponse((r) => r.url().endsWith(`/ui/requests/${id}/decision`));
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      expect((await answer).status()).toBe(403);
      await page.getByText('Form rejected').waitFor();
    } finally {
      evil.close();
    }
    expect(((await (await server.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
  });

  it('filters the audit log and exports it as CSV', async () => {
    await signIn();
    const filed = [];
    for (const [tool, agent] of [
      ['pay_invoice', 'billing-agent'],
      ['deploy_service', 'ops-bot'],
      ['delete_records', 'ops-bot'],
      ['send_email', 'mail-agent'],
    ] as const) {
      filed.push(await file({ tool_name: tool, agent_id: agent, tool_args: { n: filed.length } }));
    }
    await server.gateway.decide({
      requestId: filed[0]!.id,
      decision: 'approve',
      actor: { channel: 'web', userId: 'alice' },
    });
    await server.gateway.decide({
      requestId: filed[1]!.id,
      decision: 'deny',
      reason: 'change freeze until Monday',
      actor: { channel: 'slack', userId: 'U0ALICE' },
    });
    await server.gateway.cancel(filed[2]!.id, 'api:runtime');
    await page.goto(`${server.url}/ui/audit`);
    expect(await page.locator('table.audit tbody tr').count()).toBe(4);
    await page.screenshot({ path: `${DOCS}audit.png`, fullPage: true });

    await page.locator('select[name=status]').selectOption('denied');
    await page.locator('form.filters button[type=submit]').click();
    await page.waitForURL(/status=denied/);
    const rows = page.locator('table.audit tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('change freeze until Monday');

    const href = (await page.locator('#export-csv').getAttribute('href'))!;
    expect(href).toContain('status=denied');
    const csv = await page.request.get(`${server.url}${href}`);
    expect(csv.status()).toBe(200);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('deploy_service');
  });

  it('is readable on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn();
    const { id } = await file({
      tool_name: 'deploy_service',
      tool_args: { service: 'billing', version: '1.4.2', environment: 'production' },
      agent_id: 'ops-bot',
      prompt: 'Deploy billing 1.4.2 to production?',
    });
    await openRequest(id);
    // Nothing wider than the screen: no sideways scrolling to reach the buttons.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await page.locator('#approve-button').isVisible()).toBe(true);
    await page.screenshot({ path: `${DOCS}request-phone.png`, fullPage: true });
  });
});
