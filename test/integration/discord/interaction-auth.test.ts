/**
 * Every interaction is authenticated with the application's Ed25519 key: a forged, unsigned, stale, future-dated or
 * tampered tap gets 401 and changes nothing (no decision, no event, no edit); a PING is answered only when signed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { SignOptions } from '../../fakes/discord/signer.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

describe('discord interaction authentication', () => {
  let env: DiscordGateway;

  afterEach(async () => {
    await env.close();
  });

  async function expectUnchanged(request: ConfirmationRequest) {
    expect((await env.get(request.id)).status).toBe('pending');
    expect(await env.eventTypes(request.id)).toEqual(['created', 'delivered']);
    expect(env.discord.fake.callsTo('PATCH', /messages/)).toHaveLength(0);
    expect(env.discord.fake.card(env.refOf(request))?.actionable).toBe(true);
  }

  const now = () => Math.floor(Date.now() / 1000);

  const bent: [string, SignOptions][] = [
    ['signed with another key', { forged: true }],
    ['without signature headers', { unsigned: true }],
    ['with a signature that is not hex', { signature: 'not-a-signature' }],
    ['signed more than five minutes ago (a replay)', { timestamp: now() - 6 * 60 }],
    ['signed more than five minutes ahead', { timestamp: now() + 6 * 60 }],
    ['whose body changed after signing', { tamper: (body) => body.replace('"type":3', '"type":3,"extra":1') }],
  ];

  for (const [what, sign] of bent) {
    it(`refuses a tap ${what} with 401, and nothing changes`, async () => {
      env = await startDiscordGateway();
      const request = await env.file();
      const result = await env.discord.press(env.server, request, 'Approve', '900000000000000001', { sign });
      expect(result.status).toBe(401);
      expect(result.body).not.toHaveProperty('type');
      await expectUnchanged(request);
    });
  }

  it('takes a tap signed four minutes ago (inside the window)', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    const result = await env.discord.press(env.server, request, 'Approve', '900000000000000001', {
      sign: { timestamp: now() - 4 * 60 },
    });
    expect(result.status).toBe(200);
    expect((await env.get(request.id)).status).toBe('approved');
  });

  it('refuses the same signed interaction a second time (a replay inside the window)', async () => {
    env = await startDiscordGateway();
    const first = await env.file();
    const second = await env.file();
    const payload = (request: typeof first) => {
      const message = env.discord.messageFor(request);
      const customId = (message.versions[0]!.components as { components: { custom_id: string }[] }[])[0]!.components[0]!
        .custom_id;
      return {
        id: '1400000000000000001',
        application_id: '1100000000000000001',
        type: 3,
        token: 't',
        version: 1,
        channel_id: message.channelId,
        member: { user: { id: '900000000000000001' } },
        data: { custom_id: customId, component_type: 2 },
      };
    };
    expect((await env.discord.post(env.server, payload(first))).body).toMatchObject({ type: 7 });
    // The same interaction id again, even re-signed around another button, is a replay.
    expect((await env.discord.post(env.server, payload(second))).status).toBe(401);
    expect((await env.get(second.id)).status).toBe('pending');
  });

  it('answers a signed PING with PONG, and a forged one with 401', async () => {
    env = await startDiscordGateway();
    const ping = { id: '1', application_id: '1100000000000000001', type: 1, token: 'ping-token', version: 1 };
    expect(await env.discord.post(env.server, ping)).toEqual({ status: 200, body: { type: 1 } });
    expect((await env.discord.post(env.server, ping, { forged: true })).status).toBe(401);
    expect((await env.discord.post(env.server, ping, { unsigned: true })).status).toBe(401);
  });
});
