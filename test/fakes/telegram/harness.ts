/**
 * The Telegram test harness: the real Telegram channel (grammY) pointed at a per-test {@link FakeTelegram}, and taps
 * built from the buttons the fake actually received, delivered as Telegram delivers them: posted to the gateway's
 * webhook with the secret header (webhook mode), or handed out by `getUpdates` (polling mode). Implements the shared
 * {@link ChannelHarness} and adds what the Telegram-specific tests need.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import {
  createTelegramChannel,
  type TelegramChannel,
  type TelegramChannelOptions,
} from '../../../channels/telegram/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { ChannelHarness } from '../../contracts/channel.contract.js';
import { eventually } from '../../helpers/eventually.js';
import type { TestServer } from '../../helpers/server.js';
import { FakeTelegram, type FakeMessage, type FakeUser, type RecordedCall } from './fake-telegram.js';

/** The group chat cards go to unless a request names another. */
export const APPROVALS_CHAT = '-1001000000001';

/** Options of {@link TelegramHarness.press}. */
export interface PressOptions {
  /** The card to tap (the one in this chat). */
  chatId?: string;
  /** Replace the nonce in the button's callback_data. */
  nonce?: string;
  /** Webhook mode: the secret header to send (null: none). Defaults to the right one. */
  secret?: string | null;
  /** The tapper's name fields. */
  user?: Omit<FakeUser, 'id'>;
}

/** What a tap led to: the HTTP status of the webhook post (200 when polled), the update, and the toast answered. */
export interface TapResult {
  status: number;
  update: Record<string, unknown>;
  /** The `answerCallbackQuery` body, or null when the query was never answered. */
  answer: RecordedCall['body'] | null;
}

/** The Telegram harness: the contract's surface plus the fake and finer-grained taps. */
export interface TelegramHarness extends ChannelHarness {
  channel: TelegramChannel;
  fake: FakeTelegram;
  mode: 'webhook' | 'polling';
  secret: string;
  /** The message Telegram holds for `request` (in `chatId` when given). */
  messageFor(request: ConfirmationRequest, chatId?: string): FakeMessage;
  /** Taps the button whose label ends with `label` (or the button at that index) on the request's card, as `userId`. */
  press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    options?: PressOptions,
  ): Promise<TapResult>;
  /** Delivers an update as the mode does; in polling mode waits until the bot confirmed it. */
  deliver(server: TestServer, update: Record<string, unknown>, secret?: string | null): Promise<TapResult>;
}

/** Builds a harness with a fresh fake, token and secret. `overrides` reach the channel options. */
export async function makeTelegramHarness(
  options: { mode?: 'webhook' | 'polling'; channel?: Partial<TelegramChannelOptions> } = {},
): Promise<TelegramHarness> {
  const token = `${1_000_000 + Math.floor(Math.random() * 1_000_000)}:AA${randomBytes(20).toString('base64url')}`;
  const secret = randomBytes(24).toString('base64url');
  const mode = options.mode ?? 'webhook';
  const fake = await FakeTelegram.start({ token });
  const channel = createTelegramChannel({
    botToken: token,
    mode,
    webhookSecret: mode === 'webhook' ? secret : undefined,
    apiRoot: fake.apiRoot,
    // Short polls, so a stopped test gateway never waits long on one.
    pollTimeoutS: 2,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...options.channel,
  });

  function messageFor(request: ConfirmationRequest, chatId?: string): FakeMessage {
    const compact = request.id.replace(/-/g, '');
    const message = fake
      .allMessages()
      .find(
        (m) =>
          (!chatId || String(m.chatId) === chatId) &&
          (m.versions[0]!.replyMarkup ? JSON.stringify(m.versions[0]!.replyMarkup).includes(`:${compact}:`) : false),
      );
    if (!message) throw new Error(`no telegram card for request ${request.id}${chatId ? ` in ${chatId}` : ''}`);
    return message;
  }

  async function deliver(
    server: TestServer,
    update: Record<string, unknown>,
    tapSecret: string | null = secret,
  ): Promise<TapResult> {
    const answer = () => {
      const id = (update.callback_query as { id?: string } | undefined)?.id;
      return fake.callsTo('answerCallbackQuery').find((c) => c.body.callback_query_id === id)?.body ?? null;
    };
    if (mode === 'webhook') {
      const { status } = await fake.postUpdate(`${server.url}/channels/telegram/webhook`, update, tapSecret);
      return { status, update, answer: answer() };
    }
    fake.queueUpdate(update);
    // Polled: done once the bot answered the tap (every callback query is answered) or confirmed the update.
    await eventually(() => {
      if (!answer() && fake.pendingUpdates > 0) throw new Error('the bot has not handled the update yet');
    });
    return { status: 200, update, answer: answer() };
  }

  async function press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    pressOptions: PressOptions = {},
  ): Promise<TapResult> {
    const message = messageFor(request, pressOptions.chatId);
    const buttons = (
      message.versions[0]!.replyMarkup?.inline_keyboard as { text: string; callback_data: string }[][]
    ).flat();
    const found = typeof button === 'number' ? buttons[button] : buttons.find((b) => b.text.endsWith(button));
    if (!found) throw new Error(`the card has no button ${button}`);
    const data =
      pressOptions.nonce === undefined
        ? found.callback_data
        : found.callback_data.replace(/:[\w-]+$/, `:${pressOptions.nonce}`);
    return deliver(
      server,
      fake.tapUpdate(message, data, { id: userId, ...pressOptions.user }),
      pressOptions.secret === undefined ? secret : pressOptions.secret,
    );
  }

  return {
    channel,
    fake,
    mode,
    secret,
    target: APPROVALS_CHAT,
    messageFor,
    press,
    deliver,
    async card(messageRef) {
      const card = fake.card(messageRef);
      return card && { text: card.text, actionable: card.actionable };
    },
    async tap(server, request, decision, userId, tapOptions = {}) {
      return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { nonce: tapOptions.nonce })).status;
    },
    async forgedTap(server, request, decision, userId) {
      if (mode === 'webhook')
        return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { secret: 'not-the-secret' }))
          .status;
      // Only Telegram can hand a polling bot an update; a forger can only post to where a webhook would be.
      const message = messageFor(request);
      const button = (message.versions[0]!.replyMarkup?.inline_keyboard as { callback_data: string }[][])[0]![
        decision === 'approve' ? 0 : 1
      ]!;
      return (
        await fake.postUpdate(
          `${server.url}/channels/telegram/webhook`,
          fake.tapUpdate(message, button.callback_data, { id: userId }),
          'not-the-secret',
        )
      ).status;
    },
    // Polling mode mounts no webhook: a forged post finds no route at all.
    forgedStatus: mode === 'webhook' ? 401 : 404,
    async close() {
      await channel.stop();
      await fake.close();
    },
  };
}
