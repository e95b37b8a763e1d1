/**
 * What a Slack card shows, and how it changes: the request's details while pending (arguments masked and cut,
 * markup from the request neutralized), buttons carrying only id + nonce; after any state change the outcome and no
 * buttons — decided through the API, expired (deny or approve by default), cancelled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { buttonsOf } from '../../fakes/slack/block-rules.js';
import type { FakeCard } from '../../fakes/slack/fake-slack.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE, manyFileEdit } from '../../helpers/summary-calls.js';

describe('slack cards', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  function cardOf(request: { id: string }): FakeCard {
    const message = env.slack.messageFor(request as never);
    return env.slack.fake.card(`${message.channel}:${message.ts}`)!;
  }

  async function outcomeCard(request: { id: string }, pattern: RegExp): Promise<FakeCard> {
    return eventually(() => {
      const card = cardOf(request);
      expect(card.actionable).toBe(false);
      expect(card.text).toMatch(pattern);
      return card;
    });
  }

  it('shows prompt, tool, masked arguments, requester, expiry and approvers, with Approve/Deny buttons', async () => {
    env = await startSlackGateway();
    const request = await env.file({
      tool_name: 'pay_invoice',
      tool_args: { invoice: 'INV-7', amount: 120, api_key: 'sk-live-123456', note: 'Bearer abc' },
      prompt: 'Pay invoice INV-7?',
      agent_id: 'ops-bot',
      user_id: 'U0REQ',
      approvers: ['slack:UBOSS', 'web:alice'],
    });
    const card = cardOf(request);
    expect(card.actionable).toBe(true);
    for (const part of [
      'Approval needed: pay_invoice',
      'Pay invoice INV-7?',
      'INV-7',
      '"amount": 120',
      'agent ops-bot for user U0REQ',
      request.expiresAt.toISOString(),
      'slack:UBOSS, web:alice',
    ]) {
      expect(card.text).toContain(part);
    }
    expect(card.text).not.toContain('sk-live-123456');
    expect(card.text).not.toContain('Bearer abc');
    const buttons = buttonsOf(card.blocks);
    expect(buttons.map((b) => b.label)).toEqual(['Approve', 'Deny', 'Deny with reason…']);
    expect(new Set(buttons.map((b) => b.value))).toEqual(new Set([`${request.id}:${request.nonce}`]));
    const styles = (
      card.blocks.find((b) => (b as { type: string }).type === 'actions') as { elements: { style?: string }[] }
    ).elements.map((e) => e.style);
    expect(styles).toEqual(['primary', 'danger', undefined]);
    // The notification text (shown in push notifications) is the title, not the arguments.
    const [posted] = env.slack.fake.callsTo('chat.postMessage');
    expect(posted!.params.text).toBe('Approval needed: pay_invoice — Waiting for a decision');
  });

  it('neutralizes Slack markup coming from the request, and keeps huge arguments within Slack limits', async () => {
    env = await startSlackGateway();
    const request = await env.file({
      tool_name: 'run_sql',
      tool_args: { sql: 'DROP TABLE users; -- <!channel> <https://evil.example|click> ```', blob: 'x'.repeat(20_000) },
      prompt: 'Hey <!here>, run this?',
    });
    const raw = JSON.stringify(cardOf(request).blocks);
    expect(raw).not.toContain('<!channel>');
    expect(raw).not.toContain('<https://evil.example');
    expect(raw).toContain('&lt;!channel&gt;');
    const text = cardOf(request).text;
    expect(text).toContain('Hey <!here>, run this?'); // plain_text: shown literally, never a mention
    expect(text).toMatch(/more characters/);
  });

  it('shows the call summary within Slack limits: risk, files with counts, first diff lines, programs, statements, a link', async () => {
    env = await startSlackGateway({ slack: { publicUrl: 'https://gate.example.com/' } });
    const edit = cardOf(await env.file(MULTI_FILE_EDIT));
    for (const part of [
      '🔴 *High risk*: Changes a file outside the working directory: ../shared/legacy-billing.ts',
      'Changes 3 files: +12 −1',
      '• src/billing/retry.ts  +10 −0 (new file)',
      '• ../shared/legacy-billing.ts  +0 −0 (deleted, outside the working directory)',
      "-  region: 'eu-west-1',",
      '+  STRIPE_SECRET_KEY: ••••',
    ])
      expect(edit.text).toContain(part);
    expect(JSON.stringify(edit.blocks)).not.toContain(EDIT_SECRET);
    const link = JSON.stringify(edit.blocks).match(/<(https:[^|]+)\|Open the request page>/)?.[1];
    expect(link).toMatch(/^https:\/\/gate\.example\.com\/ui\/requests\/[0-9a-f-]{36}$/);
    // The raw arguments stay on the card, after the summary.
    expect(edit.text.indexOf('Changes 3 files')).toBeLessThan(edit.text.indexOf('*** Begin Patch'));

    const shell = cardOf(await env.file(RISKY_PIPELINE));
    expect(shell.text).toContain('Runs curl, sudo, bash, git');
    expect(shell.text).toContain('• git push --force origin main  [history rewrite, network]');
    const sql = cardOf(await env.file(SQL_DELETE));
    expect(sql.text).toContain('Updates or deletes every row (no WHERE): customers');
    expect(sql.text).toContain('• DELETE customers  [unbounded write]');
    // A summary of the most the API stores still fits (the fake refuses blocks past Slack's limits).
    const many = cardOf(await env.file(manyFileEdit(60, 200)));
    expect(many.text).toContain('… and ');
  });

  it('replaces the buttons with the outcome when decided through the API', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const response = await env.server.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'deny', reason: 'change freeze', approver: 'web:alice' },
    });
    expect(response.status).toBeLessThan(300);
    const card = await outcomeCard(request, /Denied by/);
    expect(card.text).toContain('change freeze');
    expect(card.text).toContain('Denied: deploy_service');
  });

  it('shows "expired — denied by default" when the request times out', async () => {
    // Expiry on a ManualClock (no real seconds waited); deliveries run on the same clock, so step it to send the card.
    const clock = new ManualClock(Date.now());
    env = await startSlackGateway({
      waitForCards: false,
      server: { clock, scheduler: new InProcessScheduler({ clock }) },
    });
    const request = await env.file({ timeout_s: 60 });
    await clock.advance(0);
    await eventually(async () =>
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'slack')?.status).toBe('sent'),
    );
    await clock.advance(60_000);
    await outcomeCard(request, /Expired.* — denied by default/);
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('updated'));
  });

  it('shows "approved by default" when the request times out with on_timeout approve', async () => {
    // Expiry on a ManualClock (no real seconds waited); deliveries run on the same clock, so step it to send the card.
    const clock = new ManualClock(Date.now());
    env = await startSlackGateway({
      waitForCards: false,
      server: { clock, scheduler: new InProcessScheduler({ clock }) },
    });
    const request = await env.file({ timeout_s: 60, on_timeout: 'approve' });
    await clock.advance(0);
    await eventually(async () =>
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'slack')?.status).toBe('sent'),
    );
    await clock.advance(60_000);
    await outcomeCard(request, /approved by default/);
  });

  it('shows the cancellation', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const response = await env.server.api(`/v1/requests/${request.id}/cancel`, {
      body: { reason: 'agent stopped', actor: 'runtime' },
    });
    expect(response.status).toBeLessThan(300);
    await outcomeCard(request, /Cancelled by/);
  });
});
