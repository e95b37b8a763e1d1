/**
 * The inbox and request page say up front when the signed-in user may not decide (no buttons that only refuse), show
 * absolute expiry times beside the relative ones, and the README walk-through files for the user its login link signs
 * in as.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebAuth } from '../../../channels/web/auth.js';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { visibleText, WebClient } from './web-client.js';

const TOKEN = 'bob-token-0123456789abcdef';

describe('web inbox: who may decide, and when it expires', () => {
  let server: TestServer;
  let bob: WebClient;
  const clock = new ManualClock(Date.parse('2026-11-23T10:00:00Z'));

  beforeEach(async () => {
    server = await startTestServer({ clock, channels: [createWebChannel({ users: [{ name: 'bob', token: TOKEN }] })] });
    bob = new WebClient(server.url);
    await bob.signIn('bob', TOKEN);
  });

  afterEach(async () => {
    await server.close();
  });

  it('shows no decision buttons to a user the allowlist leaves out, and says why', async () => {
    const { request: forAlice } = await server.gateway.request({
      toolName: 'pay_invoice',
      approvers: ['web:alice'],
      timeoutS: 300,
    });
    const { request: forBob } = await server.gateway.request({
      toolName: 'deploy',
      approvers: ['web:bob'],
      timeoutS: 300,
    });
    const inbox = await bob.request('/ui');
    const items = inbox.text.split('data-request-id=').slice(1);
    const aliceItem = items.find((i) => i.includes(forAlice.id))!;
    const bobItem = items.find((i) => i.includes(forBob.id))!;
    expect(visibleText(aliceItem)).toContain('You are not an approver of this request (approvers: web:alice)');
    expect(aliceItem).not.toContain('>Review<');
    expect(bobItem).toContain('>Review<');
    expect(visibleText(bobItem)).not.toContain('not an approver');

    const page = await bob.request(`/ui/requests/${forAlice.id}`);
    expect(visibleText(page.text)).toContain(
      'You are not an approver of this request: you are signed in as web:bob, and only web:alice may decide it.',
    );
    expect(page.text).not.toContain('id="decision-form"');
    expect(page.text).not.toContain('id="deny-button"');
    const own = await bob.request(`/ui/requests/${forBob.id}`);
    expect(own.text).toContain('id="decision-form"');
  });

  it('shows the absolute expiry time in UTC beside the countdown', async () => {
    await server.gateway.request({ toolName: 'pay_invoice', timeoutS: 300 });
    const inbox = visibleText((await bob.request('/ui')).text);
    expect(inbox).toContain('expires in 5m 00s (2026-11-23 10:05:00 UTC)');
  });
});

describe('README walk-through', () => {
  it('files its request for the user the printed login link signs in as', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const walkThrough = readme.slice(
      readme.indexOf('## Walk-through with curl'),
      readme.indexOf('## Use it in your agent'),
    );
    const body = /-d '(\{"tool_name"[^']*\})'/.exec(walkThrough);
    expect(body).not.toBeNull();
    const approvers = (JSON.parse(body![1]!) as { approvers?: string[] }).approvers ?? [];
    const linkUser = new WebAuth({ users: [] }).linkUser;
    // An empty allowlist would admit anyone; the walk-through names the link's user explicitly.
    expect(approvers).toContain(`web:${linkUser}`);
    expect(walkThrough).toContain(`signs in as web:${linkUser}`);
  });
});
