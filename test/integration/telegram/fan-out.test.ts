/**
 * One request on two Telegram chats and the web inbox (and, in the last test, Discord too): a verdict made anywhere —
 * a tap in either chat, another channel, the API, a cancel, the deadline — is written into every Telegram card with
 * `editMessageText`: keyboard gone, verdict shown. A later tap on the other card is refused and changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeDiscordHarness } from '../../fakes/discord/harness.js';
import { makeTelegramHarness } from '../../fakes/telegram/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ONE = '-1001000000201';
const TWO = '-1001000000202';
const TWO_CHATS = [{ type: 'telegram', target: ONE }, { type: 'telegram', target: TWO }, { type: 'web' }];

describe('telegram fan-out', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env?.close();
  });

  async function expectBothCards(request: ConfirmationRequest, pattern: RegExp) {
    await eventually(() => {
      for (const chatId of [ONE, TWO]) {
        const card = env.telegram.fake.card(env.refOf(request, chatId))!;
        expect(card.actionable).toBe(false);
        expect(card.text).toMatch(pattern);
      }
    });
  }

  it('sends one card per chat; the first tap wins, the second is refused, both cards show the verdict', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ channels: TWO_CHATS });
    expect(
      env.telegram.fake
        .callsTo('sendMessage')
        .map((c) => c.body.chat_id)
        .sort(),
    ).toEqual([ONE, TWO].sort());
    await env.telegram.press(env.server, request, 'Approve', '5000000001', { chatId: ONE });
    const late = await env.telegram.press(env.server, request, 'Deny', '5000000002', { chatId: TWO });
    expect(late.answer).toMatchObject({ text: expect.stringContaining('already approved'), show_alert: true });
    expect(await env.get(request.id)).toMatchObject({ status: 'approved', respondedBy: 'telegram:5000000001' });
    await expectBothCards(request, /Approved by telegram:5000000001/);
  });

  it('edits the Telegram cards when the web inbox (through the API) decides', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ channels: TWO_CHATS });
    const response = await env.server.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'deny', approver: 'web:alice', reason: 'not on a Friday' },
    });
    expect(response.status).toBeLessThan(300);
    await expectBothCards(request, /Denied by web:alice[\s\S]*not on a Friday/);
    const edits = env.telegram.fake.callsTo('editMessageText');
    expect(edits.map((e) => `${String(e.body.chat_id)}:${String(e.body.message_id)}`).sort()).toEqual(
      [env.refOf(request, ONE), env.refOf(request, TWO)].sort(),
    );
  });

  it('edits the card when the request is cancelled', async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    await env.server.gateway.cancel(request.id, 'api:runtime');
    await eventually(() =>
      expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringMatching(/Cancelled/),
      }),
    );
  });

  it('edits the card when the request expires (on a manual clock, no waiting)', async () => {
    const clock = new ManualClock(Date.now());
    env = await startTelegramGateway({ server: { clock }, waitForCards: false });
    const request = await env.file({ timeout_s: 60 });
    await eventually(async () => {
      await clock.advance(0);
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'telegram')?.status).toBe('sent');
    });
    await clock.advance(60_000);
    await eventually(async () => {
      await clock.advance(0);
      expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringMatching(/Expired/),
      });
    });
  });

  it('edits the Telegram card when a Discord tap decides, and the Discord card when a Telegram tap does', async () => {
    const telegram = await makeTelegramHarness();
    const discord = await makeDiscordHarness();
    const server = await startTestServer({ channels: [telegram.channel, discord.channel, createWebChannel()] });
    env = {
      telegram,
      server,
      close: async () => (await server.close(), await telegram.close(), await discord.close()),
    } as unknown as TelegramGateway;
    const file = async () => {
      const { request } = await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: { service: 'billing' },
        channels: [
          { type: 'telegram', target: telegram.target },
          { type: 'discord', target: discord.target },
        ],
      });
      await eventually(async () =>
        expect((await server.store.messages(request.id)).every((m) => m.status === 'sent')).toBe(true),
      );
      const refs = Object.fromEntries(
        (await server.store.messages(request.id)).map((m) => [m.channel, m.messageRef ?? '']),
      );
      return { request, refs };
    };
    const first = await file();
    expect((await discord.press(server, first.request, 'Approve', '900000000000000001')).body).toMatchObject({
      type: 7,
    });
    await eventually(() =>
      expect(telegram.fake.card(first.refs.telegram!)).toMatchObject({
        actionable: false,
        text: expect.stringContaining('Approved by discord:900000000000000001'),
      }),
    );
    const second = await file();
    await telegram.press(server, second.request, 'Deny', '5000000001');
    await eventually(() =>
      expect(discord.fake.card(second.refs.discord!)).toMatchObject({
        actionable: false,
        text: expect.stringContaining('Denied by telegram:5000000001'),
      }),
    );
  });
});
