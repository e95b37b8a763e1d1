/**
 * Telegram under policies and the people directory: a rule's standing grants become extra buttons whose tap approves
 * and grants; `remind_after_s` replies to the card; a request whose approvers are people reaches each one in their
 * private chat; and a card sent before a restart still decides, and is still edited, after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramChannel } from '../../../channels/telegram/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ALICE = '5000000001';
const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy_service }
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, args.service] }
  - name: payments
    match: { tool: pay_invoice }
    approvers: ["person:alice"]
    timeout_s: 3600
    remind_after_s: 600
people:
  - { id: alice, accounts: { telegram: "${ALICE}" } }
`;

describe('telegram with policies, people and restarts', () => {
  let env: TelegramGateway;
  let dir: string | undefined;

  afterEach(async () => {
    await env.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("shows the rule's grant as a button; its tap approves, and the next matching request is approved by the grant", async () => {
    env = await startTelegramGateway({ server: { policy: POLICY } });
    const request = await env.file();
    expect(env.telegram.fake.card(env.refOf(request))!.buttons.map((b) => b.text)).toEqual([
      '✅ Approve',
      '❌ Deny',
      'Approve for 1 hour',
    ]);
    const result = await env.telegram.press(env.server, request, 'Approve for 1 hour', ALICE);
    expect(result.answer?.text).toContain('Approved');
    expect((await env.get(request.id)).status).toBe('approved');
    expect(await env.eventTypes(request.id)).toContain('grant_created');
    await eventually(() => expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(false));
    const again = await env.server.api('/v1/requests', {
      body: {
        tool_name: 'deploy_service',
        tool_args: { service: 'billing', version: '9' },
        channels: [{ type: 'telegram', target: env.telegram.target }],
      },
    });
    expect(((await again.json()) as { status: string }).status).toBe('approved');
  });

  it('sends a request for a person to their private chat, and reminds there with a reply to the card', async () => {
    const clock = new ManualClock(Date.now());
    env = await startTelegramGateway({
      server: { policy: POLICY, clock, scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    const { request } = await env.server.gateway.request({ toolName: 'pay_invoice', toolArgs: { invoice: 'INV-7' } });
    await eventually(async () => {
      await clock.advance(0);
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'telegram')?.status).toBe('sent');
    });
    const card = env.telegram.messageFor(request, ALICE);
    await clock.advance(600_000);
    const reply = await eventually(async () => {
      await clock.advance(0);
      const [r] = env.telegram.fake.callsTo('sendMessage').slice(1);
      expect(r).toBeDefined();
      return r!;
    });
    expect(reply.body).toMatchObject({
      chat_id: String(card.chatId),
      parse_mode: 'HTML',
      reply_parameters: { message_id: card.messageId, allow_sending_without_reply: true },
      text: expect.stringContaining('Reminder'),
    });
    expect(reply.body.reply_markup).toBeUndefined();
  });

  it('decides from a card sent before a restart, and edits it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-telegram-restart-'));
    const dbPath = join(dir, 'tollgate.db');
    env = await startTelegramGateway({ server: { dbPath } });
    const request = await env.file();
    await env.server.close();
    await env.telegram.channel.stop();
    // A new process: a new channel for the same bot and secret, the same database, and nothing else carried over.
    const channel = createTelegramChannel({
      botToken: env.telegram.fake.token,
      mode: 'webhook',
      webhookSecret: env.telegram.secret,
      apiRoot: env.telegram.fake.apiRoot,
      logger: pino({ level: 'silent' }),
    });
    const server = await startTestServer({ dbPath, channels: [channel] });
    env.server = server;
    const result = await env.telegram.press(server, request, 'Deny', ALICE);
    expect(result.answer?.text).toContain(`Denied by telegram:${ALICE}`);
    expect((await server.gateway.get(request.id))?.status).toBe('denied');
    await eventually(() => expect(env.telegram.fake.callsTo('editMessageText')).toHaveLength(1));
    expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
      actionable: false,
      text: expect.stringContaining(`Denied by telegram:${ALICE}`),
    });
  });
});
