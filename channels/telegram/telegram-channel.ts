/**
 * @module channels/telegram/telegram-channel
 * The Telegram channel: posts approval cards with `sendMessage` (HTML text and an inline keyboard) through grammY,
 * rewrites them with `editMessageText` after every change (final: verdict shown, keyboard gone), and takes taps as
 * `callback_query` updates, from its webhook or by long polling (see `updates.ts`).
 *
 * grammY never retries a call on its own: a failed call throws at once, mapped to the channel contract's errors, and
 * the scheduler decides when to try again.
 */
import { Api, Bot } from 'grammy';
import type { Router } from 'express';
import { pino, type Logger } from 'pino';
import { reminderText } from '../../src/channel/card.js';
import {
  PermanentChannelError,
  type CardRef,
  type Channel,
  type ChannelHost,
  type GrantButton,
} from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { isNotModified, toChannelError } from './api-errors.js';
import { cardMessage, cut, escapeHtml, type TelegramMessage } from './message.js';
import { CHAT_ID, type TelegramChannelOptions } from './options.js';
import { handleUpdates, mountWebhook } from './updates.js';

/** How long stop() waits for Telegram to confirm the last polled update. */
const STOP_WAIT_MS = 3000;

/** A message reference: `<chat id>:<message id>`. */
export function formatMessageRef(chatId: string | number, messageId: number): string {
  return `${chatId}:${messageId}`;
}

/** Splits a message reference; null when it is not one. */
export function parseMessageRef(ref: string): { chat: string; message: number } | null {
  const match = /^(-?\d{1,20}):(\d{1,15})$/.exec(ref);
  return match ? { chat: match[1]!, message: Number(match[2]) } : null;
}

/**
 * The Telegram channel adapter.
 * @example
 * const telegram = new TelegramChannel({ botToken: '123:AA…', mode: 'webhook', webhookSecret: '…', defaultTarget: '-1001234' });
 */
export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  readonly defaultTarget?: string;
  /** The grammY bot: its middleware handles every update, its own client does the long polling. */
  readonly bot: Bot;
  /** The client of every other call (sends, edits, answers), with a timeout far shorter than a long poll's. */
  readonly api: Api;
  private readonly logger: Logger;
  private host: ChannelHost | null = null;
  private polling: Promise<void> | null = null;
  private init: Promise<void> | null = null;

  constructor(private readonly options: TelegramChannelOptions) {
    // A webhook without its secret would take updates from anyone who finds the URL.
    if (options.mode === 'webhook' && !options.webhookSecret)
      throw new Error('telegram: webhook mode needs a webhook secret');
    this.defaultTarget = options.defaultTarget;
    const logger = options.logger ?? pino({ level: 'silent' });
    this.logger = logger.bindings().channel === 'telegram' ? logger : logger.child({ channel: 'telegram' });
    // The bot's client must outlast a long poll; a send or an edit that hangs that long should fail and be retried.
    this.bot = new Bot(options.botToken, {
      client: { apiRoot: options.apiRoot, timeoutSeconds: this.pollTimeoutS + 30 },
    });
    this.api = new Api(options.botToken, {
      apiRoot: options.apiRoot,
      timeoutSeconds: Math.max(1, Math.ceil((options.timeoutMs ?? 10_000) / 1000)),
    });
    handleUpdates(this.bot, this.api, {
      host: () => this.host,
      logger: this.logger,
      replayWindowS: options.replayWindowS,
    });
  }

  /** A user id is also the id of the bot's private chat with them (once they have started the bot). */
  directTarget(account: string): string | null {
    return /^\d{1,20}$/.test(account) ? account : null;
  }

  async send(request: ConfirmationRequest, target: string): Promise<string> {
    if (!CHAT_ID.test(target)) throw new PermanentChannelError(`telegram: not a chat id: ${target}`, 'bad_target');
    const { text, ...other } = await this.message(request);
    const sent = await this.call('sendMessage', () => this.api.sendMessage(target, text, other));
    return formatMessageRef(sent.chat.id, sent.message_id);
  }

  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = this.ref(card);
    const { text, ...other } = await this.message(request);
    await this.call('editMessageText', async () => {
      try {
        await this.api.editMessageText(ref.chat, ref.message, text, other);
      } catch (error) {
        // A retried edit whose first try got through: the card already says this.
        if (!isNotModified(error)) throw error;
      }
    });
  }

  /** A policy reminder: a reply to the card, so approvers are notified again without a second keyboard. */
  async remind(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = this.ref(card);
    const other = {
      parse_mode: 'HTML' as const,
      reply_parameters: { message_id: ref.message, allow_sending_without_reply: true },
    };
    await this.call('sendMessage', () =>
      this.api.sendMessage(ref.chat, escapeHtml(cut(reminderText(request), 4000)), other),
    );
  }

  /** Mounts `POST /channels/telegram/webhook` in webhook mode; polling mode has no route (nothing to authenticate). */
  mount(router: Router, host: ChannelHost): void {
    this.host = host;
    const secret = this.options.webhookSecret;
    if (this.options.mode === 'webhook' && secret)
      mountWebhook(router, this.bot, { secret, logger: this.logger, ready: () => this.ready() });
  }

  /** Polling mode starts the `getUpdates` loop; webhook mode registers its URL when it knows it. */
  async start(host: ChannelHost): Promise<void> {
    this.host ??= host;
    if (this.options.mode === 'polling') {
      if (this.polling) return;
      // bot.start() resolves only when polling stops; it deletes any webhook first (the two exclude each other).
      this.polling = this.bot
        .start({ allowed_updates: ['callback_query'], timeout: this.pollTimeoutS })
        .catch((error: unknown) => {
          this.logger.error(
            { err: describeError(error) },
            'telegram long polling stopped (another process polling this bot, or a revoked token?)',
          );
        });
      return;
    }
    const { webhookUrl, webhookSecret } = this.options;
    if (webhookUrl) {
      await this.call('setWebhook', () =>
        this.api.setWebhook(webhookUrl, { secret_token: webhookSecret, allowed_updates: ['callback_query'] }),
      ).catch((error: unknown) => {
        this.logger.error(
          { err: describeError(error) },
          'telegram setWebhook failed: register the webhook by hand (docs/telegram.md)',
        );
      });
    }
  }

  async stop(): Promise<void> {
    if (!this.polling) return;
    // stop() aborts the pending long poll at once, then confirms the last update's offset so it is not delivered again;
    // a shutdown waits a few seconds for that confirmation at most (an unconfirmed update is handled once more, and
    // its decision refused as already made).
    const confirmed = this.bot
      .stop()
      .catch((error: unknown) =>
        this.logger.warn({ err: describeError(error) }, 'telegram: confirming the last update failed'),
      );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      confirmed,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS).unref())),
    ]);
    clearTimeout(timer);
    await this.polling;
    this.polling = null;
  }

  private get pollTimeoutS(): number {
    return this.options.pollTimeoutS ?? 25;
  }

  /** Fetches the bot's own identity once (grammY needs it before handling an update); a failure is retried next time. */
  private ready(): Promise<void> {
    if (this.bot.isInited()) return Promise.resolve();
    this.init ??= this.call('getMe', () => this.api.getMe()).then(
      (me) => {
        if (!this.bot.isInited()) this.bot.botInfo = me;
      },
      (error: unknown) => {
        this.init = null;
        throw error;
      },
    );
    return this.init;
  }

  private ref(card: CardRef): { chat: string; message: number } {
    const ref = parseMessageRef(card.messageRef);
    if (!ref)
      throw new PermanentChannelError(`telegram: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    return ref;
  }

  private async message(request: ConfirmationRequest): Promise<TelegramMessage> {
    return cardMessage(request, {
      maxArgsChars: this.options.maxArgsChars,
      publicUrl: this.options.publicUrl,
      grants: await this.grantsFor(request),
    });
  }

  /** The standing-grant buttons a pending request's policy rule offers (none once it is final). */
  private async grantsFor(request: ConfirmationRequest): Promise<GrantButton[]> {
    const host = this.host;
    if (request.status !== 'pending' || !host?.grantOffers) return [];
    return host.grantOffers(await host.events(request.id));
  }

  /** Runs one Bot API call, mapping what it throws to the scheduler's errors. */
  private async call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toChannelError(error, method);
    }
  }
}

/** Creates the Telegram channel. */
export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  return new TelegramChannel(options);
}
