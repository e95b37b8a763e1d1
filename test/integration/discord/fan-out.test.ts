/**
 * One request on two Discord channels (and the web inbox): a verdict made anywhere — another channel's tap, the API,
 * a cancel, the deadline — is written into every Discord card with `PATCH /channels/{id}/messages/{id}`: buttons gone,
 * verdict shown. A later tap on the other card is refused ephemerally and changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

const ONE = '1100000000000000201';
const TWO = '1100000000000000202';
const TWO_CHANNELS = [{ type: 'discord', target: ONE }, { type: 'discord', target: TWO }, { type: 'web' }];

describe('discord fan-out', () => {
  let env: DiscordGateway;

  afterEach(async () => {
    await env.close();
  });

  async function expectBothCards(request: ConfirmationRequest, pattern: RegExp) {
    await eventually(() => {
      for (const channelId of [ONE, TWO]) {
        const card = env.discord.fake.card(env.refOf(request, channelId))!;
        expect(card.actionable).toBe(false);
        expect(card.text).toMatch(pattern);
      }
    });
  }

  it('posts one card per channel; the first tap wins, the second is refused, both cards show the verdict', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ channels: TWO_CHANNELS });
    expect(
      env.discord.fake
        .callsTo('POST', /messages$/)
        .map((c) => c.path)
        .sort(),
    ).toEqual([`/channels/${ONE}/messages`, `/channels/${TWO}/messages`]);
    await env.discord.press(env.server, request, 'Approve', '900000000000000001', { channelId: ONE });
    const late = await env.discord.press(env.server, request, 'Deny', '900000000000000002', { channelId: TWO });
    expect(late.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: expect.stringContaining('already approved') },
    });
    expect(await env.get(request.id)).toMatchObject({ status: 'approved', respondedBy: 'discord:900000000000000001' });
    await expectBothCards(request, /Approved by discord:900000000000000001/);
  });

  it('edits the Discord cards when the web inbox (through the API) decides', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ channels: TWO_CHANNELS });
    const response = await env.server.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'deny', approver: 'web:alice', reason: 'not on a Friday' },
    });
    expect(response.status).toBeLessThan(300);
    await expectBothCards(request, /Denied by web:alice[\s\S]*not on a Friday/);
    const patches = env.discord.fake.callsTo('PATCH', /messages\/\d+$/);
    expect(patches.map((p) => p.path).sort()).toEqual(
      [
        `/channels/${ONE}/messages/${env.discord.messageFor(request, ONE).id}`,
        `/channels/${TWO}/messages/${env.discord.messageFor(request, TWO).id}`,
      ].sort(),
    );
    expect(
      patches.every(
        (p) => (p.body.components as unknown[]).length === 0 && p.authorization === `Bot ${env.discord.fake.token}`,
      ),
    ).toBe(true);
  });

  it('edits the card when the request is cancelled', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    await env.server.gateway.cancel(request.id, 'api:runtime');
    await eventually(() =>
      expect(env.discord.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringMatching(/Cancelled/),
      }),
    );
  });

  it('edits the card when the request expires (on a manual clock, no waiting)', async () => {
    const clock = new ManualClock(Date.now());
    env = await startDiscordGateway({ server: { clock }, waitForCards: false });
    const request = await env.file({ timeout_s: 60 });
    await eventually(async () => {
      await clock.advance(0);
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'discord')?.status).toBe('sent');
    });
    await clock.advance(60_000);
    await eventually(async () => {
      await clock.advance(0);
      expect(env.discord.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringMatching(/Expired/),
      });
    });
  });
});
