/**
 * @module channels/discord/discord-channel
 * The Discord channel: posts approval cards with `POST /channels/{id}/messages` through `@discordjs/rest`, rewrites
 * them with `PATCH /channels/{id}/messages/{message id}` after every change (final: verdict shown, buttons gone), and
 * receives taps on its interactions endpoint (see `interactions.ts`).
 *
 * The REST client never retries and never waits out a rate limit on its own: a failed call throws at once, mapped to
 * the channel contract's errors, and the scheduler decides when to try again.
 */
import type { KeyObject } from 'node:crypto';
import { REST } from '@discordjs/rest';
import { Routes, type APIChannel, type APIMessage } from 'discord-api-types/v10';
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
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { mountInteractions } from './interactions.js';
import { cardMessage, escapeMarkdown, type DiscordMessage } from './message.js';
import type { DiscordChannelOptions } from './options.js';
import { toChannelError } from './rest-errors.js';
import { publicKeyFromHex } from './verify.js';

/** A message reference: `<channel id>:<message id>`. */
export function formatMessageRef(channelId: string, messageId: string): string {
  return `${channelId}:${messageId}`;
}

/** Splits a message reference; null when it is not one. */
export function parseMessageRef(ref: string): { channel: string; message: string } | null {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(ref);
  return match ? { channel: match[1]!, message: match[2]! } : null;
}

/** A target that names a person: the card goes to the bot's DM with them (`user:<user id>`). */
const USER_TARGET = /^user:(\d{1,20})$/;

/**
 * The Discord channel adapter.
 * @example
 * const discord = new DiscordChannel({ botToken: '…', publicKey: '<hex>', applicationId: '123', defaultTarget: '456' });
 */
export class DiscordChannel implements Channel {
  readonly name = 'discord';
  readonly defaultTarget?: string;
  /** The REST client used for every call (no retries, rate limits rejected). */
  readonly rest: REST;
  private readonly logger: Logger;
  private readonly key: KeyObject;
  private host: ChannelHost | null = null;

  constructor(private readonly options: DiscordChannelOptions) {
    this.defaultTarget = options.defaultTarget;
    const logger = options.logger ?? pino({ level: 'silent' });
    this.logger = logger.bindings().channel === 'discord' ? logger : logger.child({ channel: 'discord' });
    // Parsed once, so a bad key fails at start-up rather than on the first tap.
    this.key = publicKeyFromHex(options.publicKey);
    this.rest = new REST({
      ...(options.apiUrl ? { api: options.apiUrl } : {}),
      retries: 0,
      rejectOnRateLimit: () => true,
      timeout: options.timeoutMs ?? 10_000,
    }).setToken(options.botToken);
  }

  /** A user id becomes `user:<id>`: send() opens (or finds) the bot's DM channel with them first. */
  directTarget(account: string): string | null {
    return /^\d{1,20}$/.test(account) ? `user:${account}` : null;
  }

  async send(request: ConfirmationRequest, target: string): Promise<string> {
    const channel = await this.channelOf(target);
    const body = await this.message(request);
    const posted = (await this.call('POST /channels/{id}/messages', () =>
      this.rest.post(Routes.channelMessages(channel), { body }),
    )) as APIMessage;
    return formatMessageRef(posted.channel_id ?? channel, posted.id);
  }

  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = parseMessageRef(card.messageRef);
    if (!ref)
      throw new PermanentChannelError(`discord: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    const body = await this.message(request);
    await this.call('PATCH /channels/{id}/messages/{id}', () =>
      this.rest.patch(Routes.channelMessage(ref.channel, ref.message), { body }),
    );
  }

  /** A policy reminder: a reply to the card, so approvers are notified again without a second set of buttons. */
  async remind(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = parseMessageRef(card.messageRef);
    if (!ref)
      throw new PermanentChannelError(`discord: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    const body = {
      content: escapeMarkdown(reminderText(request)),
      allowed_mentions: { parse: [] },
      message_reference: { message_id: ref.message, fail_if_not_exists: false },
    };
    await this.call('POST /channels/{id}/messages', () =>
      this.rest.post(Routes.channelMessages(ref.channel), { body }),
    );
  }

  /** Mounts `POST /channels/discord/interactions`. */
  mount(router: Router, host: ChannelHost): void {
    this.host = host;
    mountInteractions(router, {
      host,
      key: this.key,
      now: this.options.now ?? (() => host.now()),
      windowS: this.options.replayWindowS,
      logger: this.logger,
      card: (request) => this.message(request),
    });
  }

  async start(host: ChannelHost): Promise<void> {
    this.host ??= host;
  }

  async stop(): Promise<void> {
    // The sweepers are unref'd timers; clearing them lets a stopped channel hold nothing at all.
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }

  /** The channel id to post in: the target itself, or the DM channel opened for a `user:<id>` target. */
  private async channelOf(target: string): Promise<string> {
    const user = USER_TARGET.exec(target)?.[1];
    if (user) {
      const dm = (await this.call('POST /users/@me/channels', () =>
        this.rest.post(Routes.userChannels(), { body: { recipient_id: user } }),
      )) as APIChannel;
      return dm.id;
    }
    if (!/^\d{1,20}$/.test(target))
      throw new PermanentChannelError(`discord: not a channel id or user:<id>: ${target}`, 'bad_target');
    return target;
  }

  private async message(request: ConfirmationRequest): Promise<DiscordMessage> {
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

  private async call(name: string, run: () => Promise<unknown>): Promise<unknown> {
    try {
      // The client forgets its token after any 401; set it again so one bad answer does not break every later call.
      this.rest.setToken(this.options.botToken);
      return await run();
    } catch (error) {
      throw toChannelError(error, name);
    }
  }
}

/** Creates the Discord channel. */
export function createDiscordChannel(options: DiscordChannelOptions): DiscordChannel {
  return new DiscordChannel(options);
}
