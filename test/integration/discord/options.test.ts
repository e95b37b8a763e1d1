/**
 * Configuring Discord: off without any `DISCORD_*` credential, errors naming the variable when configured halfway or
 * with a malformed value, and a gateway configured only through the environment that posts to the default channel
 * and takes a signed tap on its interactions endpoint.
 */
import { describe, expect, it } from 'vitest';
import { discordOptionsFromEnv } from '../../../channels/discord/index.js';
import { ValidationError } from '../../../src/api/errors.js';
import { FakeDiscord } from '../../fakes/discord/fake-discord.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';

const KEY = 'ab'.repeat(32);
const FULL = { DISCORD_BOT_TOKEN: 'bot-token', DISCORD_PUBLIC_KEY: KEY, DISCORD_APPLICATION_ID: '1100000000000000001' };

function problemOf(env: Record<string, string>): string {
  try {
    discordOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('discordOptionsFromEnv', () => {
  it('is null when no Discord credential is set', () => {
    expect(discordOptionsFromEnv({})).toBeNull();
    expect(discordOptionsFromEnv({ DISCORD_BOT_TOKEN: '  ', DISCORD_CHANNEL_ID: '123' })).toBeNull();
  });

  it('reads the environment', () => {
    expect(
      discordOptionsFromEnv({
        ...FULL,
        DISCORD_PUBLIC_KEY: KEY.toUpperCase(),
        DISCORD_API_URL: 'http://127.0.0.1:9/api/',
        DISCORD_CHANNEL_ID: '1100000000000000100',
      }),
    ).toEqual({
      botToken: 'bot-token',
      publicKey: KEY,
      applicationId: '1100000000000000001',
      apiUrl: 'http://127.0.0.1:9/api',
      defaultTarget: '1100000000000000100',
    });
  });

  it('names the variable that is missing or malformed', () => {
    expect(problemOf({ DISCORD_PUBLIC_KEY: KEY })).toMatch(/^DISCORD_BOT_TOKEN: /);
    expect(problemOf({ ...FULL, DISCORD_PUBLIC_KEY: '' })).toMatch(/^DISCORD_PUBLIC_KEY: /);
    expect(problemOf({ ...FULL, DISCORD_PUBLIC_KEY: 'not-hex' })).toMatch(/^DISCORD_PUBLIC_KEY: /);
    expect(problemOf({ ...FULL, DISCORD_APPLICATION_ID: '' })).toMatch(/^DISCORD_APPLICATION_ID: /);
    expect(problemOf({ ...FULL, DISCORD_APPLICATION_ID: 'my-app' })).toMatch(/^DISCORD_APPLICATION_ID: /);
    expect(problemOf({ ...FULL, DISCORD_BOT_TOKEN: 'Bot abc' })).toMatch(/^DISCORD_BOT_TOKEN: /);
    expect(problemOf({ ...FULL, DISCORD_API_URL: 'discord.com/api' })).toMatch(/^DISCORD_API_URL: /);
    expect(problemOf({ ...FULL, DISCORD_CHANNEL_ID: '#approvals' })).toMatch(/^DISCORD_CHANNEL_ID: /);
  });

  it('turns Discord on from the environment alone: cards go to DISCORD_CHANNEL_ID and signed taps decide', async () => {
    const fake = await FakeDiscord.start({ token: 'env-bot-token' });
    const env = {
      DISCORD_BOT_TOKEN: 'env-bot-token',
      DISCORD_PUBLIC_KEY: fake.signer.publicKeyHex,
      DISCORD_APPLICATION_ID: '1100000000000000001',
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_CHANNEL_ID: '1100000000000000100',
    };
    const server = await startTestServer({ env });
    try {
      const { request } = await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: {},
        channels: [{ type: 'discord' }],
      });
      const message = await eventually(() => {
        const [m] = fake.allMessages();
        expect(m?.channelId).toBe('1100000000000000100');
        return m!;
      });
      const customId = (message.versions[0]!.components as { components: { custom_id: string }[] }[])[0]!.components[0]!
        .custom_id;
      const result = await fake.interact(
        `${server.url}/channels/discord/interactions`,
        {
          id: '9',
          type: 3,
          token: 't',
          version: 1,
          application_id: '1100000000000000001',
          channel_id: message.channelId,
          member: { user: { id: '900000000000000001', username: 'alice' } },
          data: { custom_id: customId, component_type: 2 },
        },
        message,
      );
      expect(result.body).toMatchObject({ type: 7 });
      expect((await server.gateway.get(request.id))?.status).toBe('approved');
    } finally {
      await server.close();
      await fake.close();
    }
  });
});
