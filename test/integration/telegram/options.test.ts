/**
 * Configuring Telegram: off without any `TELEGRAM_*` credential, errors naming the variable when configured halfway or
 * with a malformed value, and gateways configured only through the environment: webhook mode (registering its URL
 * with `setWebhook` when `TOLLGATE_PUBLIC_URL` is set) and polling mode, each taking a tap.
 */
import { describe, expect, it } from 'vitest';
import { telegramOptionsFromEnv } from '../../../channels/telegram/index.js';
import { ValidationError } from '../../../src/api/errors.js';
import { FakeTelegram } from '../../fakes/telegram/fake-telegram.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const SECRET = 'a-webhook-secret_0123';
const FULL = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET };

function problemOf(env: Record<string, string>): string {
  try {
    telegramOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('telegramOptionsFromEnv', () => {
  it('is null when no Telegram credential is set', () => {
    expect(telegramOptionsFromEnv({})).toBeNull();
    expect(
      telegramOptionsFromEnv({ TELEGRAM_BOT_TOKEN: '  ', TELEGRAM_MODE: 'polling', TELEGRAM_CHAT_ID: '-100123' }),
    ).toBeNull();
  });

  it('reads the environment', () => {
    expect(
      telegramOptionsFromEnv({
        ...FULL,
        TELEGRAM_API_ROOT: 'http://127.0.0.1:9/',
        TELEGRAM_CHAT_ID: '-1001000000001',
        TOLLGATE_PUBLIC_URL: 'https://gate.example.com/',
      }),
    ).toEqual({
      botToken: TOKEN,
      mode: 'webhook',
      webhookSecret: SECRET,
      apiRoot: 'http://127.0.0.1:9',
      defaultTarget: '-1001000000001',
      webhookUrl: 'https://gate.example.com/channels/telegram/webhook',
    });
    expect(telegramOptionsFromEnv({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_MODE: 'POLLING' })).toMatchObject({
      mode: 'polling',
      webhookSecret: undefined,
      webhookUrl: undefined,
    });
  });

  it('names the variable that is missing or malformed', () => {
    expect(problemOf({ TELEGRAM_WEBHOOK_SECRET: SECRET })).toMatch(/^TELEGRAM_BOT_TOKEN: /);
    expect(problemOf({ ...FULL, TELEGRAM_BOT_TOKEN: 'not-a-token' })).toMatch(/^TELEGRAM_BOT_TOKEN: /);
    expect(problemOf({ TELEGRAM_BOT_TOKEN: TOKEN })).toMatch(/^TELEGRAM_WEBHOOK_SECRET: .*TELEGRAM_MODE=polling/);
    expect(problemOf({ ...FULL, TELEGRAM_WEBHOOK_SECRET: 'has spaces in it' })).toMatch(/^TELEGRAM_WEBHOOK_SECRET: /);
    expect(problemOf({ ...FULL, TELEGRAM_WEBHOOK_SECRET: 'x'.repeat(257) })).toMatch(/^TELEGRAM_WEBHOOK_SECRET: /);
    expect(problemOf({ ...FULL, TELEGRAM_MODE: 'push' })).toMatch(/^TELEGRAM_MODE: /);
    expect(problemOf({ ...FULL, TELEGRAM_API_ROOT: 'api.telegram.org' })).toMatch(/^TELEGRAM_API_ROOT: /);
    expect(problemOf({ ...FULL, TELEGRAM_CHAT_ID: '@approvals' })).toMatch(/^TELEGRAM_CHAT_ID: /);
  });

  it('stops a gateway from starting when configured halfway', async () => {
    await expect(startTestServer({ env: { TELEGRAM_WEBHOOK_SECRET: SECRET } })).rejects.toThrow(/TELEGRAM_BOT_TOKEN/);
  });

  it('turns Telegram on from the environment alone (webhook mode): registers the webhook, sends to TELEGRAM_CHAT_ID, takes a tap', async () => {
    const fake = await FakeTelegram.start({ token: TOKEN });
    const env = {
      ...FULL,
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_CHAT_ID: '-1001000000100',
      TOLLGATE_PUBLIC_URL: 'https://gate.example.com',
    };
    const server = await startTestServer({ env });
    try {
      await eventually(() =>
        expect(fake.webhook).toEqual({
          url: 'https://gate.example.com/channels/telegram/webhook',
          secret_token: SECRET,
        }),
      );
      expect(fake.callsTo('setWebhook')[0]!.body).toMatchObject({ allowed_updates: ['callback_query'] });
      const { request } = await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: {},
        channels: [{ type: 'telegram' }],
      });
      const message = await eventually(() => {
        const [m] = fake.allMessages();
        expect(m?.chatId).toBe(-1001000000100);
        return m!;
      });
      const data = (message.versions[0]!.replyMarkup!.inline_keyboard as { callback_data: string }[][])[0]![0]!
        .callback_data;
      const result = await fake.postUpdate(
        `${server.url}/channels/telegram/webhook`,
        fake.tapUpdate(message, data, { id: 5000000001 }),
        SECRET,
      );
      expect(result.status).toBe(200);
      expect((await server.gateway.get(request.id))?.status).toBe('approved');
    } finally {
      await server.close();
      await fake.close();
    }
  });

  it('turns Telegram on in polling mode from the environment alone', async () => {
    const fake = await FakeTelegram.start({ token: TOKEN });
    const server = await startTestServer({
      env: {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_MODE: 'polling',
        TELEGRAM_API_ROOT: fake.apiRoot,
        TELEGRAM_CHAT_ID: '-1001000000100',
      },
    });
    try {
      await eventually(() => expect(fake.callsTo('getUpdates').length).toBeGreaterThan(0));
      const { request } = await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: {},
        channels: [{ type: 'telegram' }],
      });
      const message = await eventually(() => {
        const [m] = fake.allMessages();
        expect(m).toBeDefined();
        return m!;
      });
      const data = (message.versions[0]!.replyMarkup!.inline_keyboard as { callback_data: string }[][])[0]![1]!
        .callback_data;
      fake.queueUpdate(fake.tapUpdate(message, data, { id: 5000000001 }));
      await eventually(async () => expect((await server.gateway.get(request.id))?.status).toBe('denied'));
      expect(fake.callsTo('setWebhook')).toHaveLength(0);
    } finally {
      await server.close();
      await fake.close();
    }
  });
});
