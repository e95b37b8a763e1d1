/**
 * @module channels/slack/slack-channel
 * The Slack channel: posts approval cards with `chat.postMessage`, rewrites them with `chat.update`, and receives
 * taps through a real Bolt app — over HTTP at `POST /channels/slack/events` (an `ExpressReceiver` on tollgate's own
 * router, behind our replay guard) or over Socket Mode when an app token is configured.
 *
 * The Web API client never retries and never waits out rate limits on its own: a failed call throws at once, mapped
 * to the channel contract's errors, and the scheduler decides when to try again.
 */
import { App, ExpressReceiver, SocketModeReceiver, type AppOptions } from '@slack/bolt';
import { slackPayloadGuard } from './payload-guard.js';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { Router } from 'express';
import { pino, type Logger } from 'pino';
import {
  PermanentChannelError,
  type CardRef,
  type Channel,
  type ChannelHost,
  type DecisionSink,
  type GrantButton,
} from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { cardMessage, escapeMrkdwn } from './blocks.js';
import { reminderText } from '../../src/channel/card.js';
import { registerInteractions } from './interactions.js';
import type { SlackChannelOptions } from './options.js';
import { slackLogger } from './slack-logger.js';
import { replayGuard } from './verify.js';
import { toChannelError } from './web-api-errors.js';

/** Where Slack sends interactivity callbacks (the app's Interactivity "Request URL" ends with this path). */
export const SLACK_EVENTS_PATH = '/channels/slack/events';

/** A message reference: `<channel id>:<ts>`, e.g. `C0123:1700000000.000100`. */
export function formatMessageRef(channelId: string, ts: string): string {
  return `${channelId}:${ts}`;
}

/** Splits a message reference; null when it is not one. */
export function parseMessageRef(ref: string): { channel: string; ts: string } | null {
  const match = /^([A-Z0-9]+):(\d+\.\d+)$/.exec(ref);
  return match ? { channel: match[1]!, ts: match[2]! } : null;
}

/**
 * The Slack channel adapter.
 * @example
 * const slack = new SlackChannel({ botToken: 'xoxb-…', signingSecret: '…', defaultTarget: 'C0123' });
 */
export class SlackChannel implements Channel {
  readonly name = 'slack';
  readonly defaultTarget?: string;
  /** The Web API client used for every call (no retries, rate limits rejected). */
  readonly client: WebClient;
  private readonly logger: Logger;
  private readonly clientOptions: WebClientOptions;
  private bolt: App | null = null;
  /** The gateway, once mounted or started: it says which grant buttons a card offers. */
  private host: (DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers'>>) | null = null;

  constructor(private readonly options: SlackChannelOptions) {
    this.defaultTarget = options.defaultTarget;
    const logger = options.logger ?? pino({ level: 'silent' });
    // Every line names the channel once, whether or not the caller already bound it.
    this.logger = logger.bindings().channel === 'slack' ? logger : logger.child({ channel: 'slack' });
    this.clientOptions = {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: options.timeoutMs ?? 10_000,
      logger: slackLogger(this.logger),
    };
    this.client = new WebClient(options.botToken, this.clientOptions);
  }

  /** True when taps arrive over Socket Mode rather than HTTP. */
  get socketMode(): boolean {
    return Boolean(this.options.appToken);
  }

  /** A user id: `chat.postMessage` to it posts in the bot's direct message with that person. */
  directTarget(account: string): string {
    return account;
  }

  /** `users.lookupByEmail` (scope `users:read.email`); Slack's `users_not_found` means nobody has that address. */
  async accountByEmail(email: string): Promise<string | null> {
    try {
      const { user } = await this.client.users.lookupByEmail({ email });
      return user?.id ?? null;
    } catch (error) {
      if ((error as { data?: { error?: string } }).data?.error === 'users_not_found') return null;
      throw toChannelError(error, 'users.lookupByEmail');
    }
  }

  async send(request: ConfirmationRequest, target: string): Promise<string> {
    const message = cardMessage(request, {
      maxArgsChars: this.options.maxArgsChars,
      publicUrl: this.options.publicUrl,
      grants: await this.grantsFor(request),
    });
    try {
      const result = await this.client.chat.postMessage({
        channel: target,
        ...message,
        unfurl_links: false,
        unfurl_media: false,
      });
      if (!result.ts) throw new Error('slack chat.postMessage: answer without ts');
      // A user id as target opens a DM: updates must name the DM's channel id, which Slack returns.
      return formatMessageRef(result.channel ?? target, result.ts);
    } catch (error) {
      throw toChannelError(error, 'chat.postMessage');
    }
  }

  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = parseMessageRef(card.messageRef);
    if (!ref) throw new PermanentChannelError(`slack: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    try {
      await this.client.chat.update({
        channel: ref.channel,
        ts: ref.ts,
        ...cardMessage(request, {
          maxArgsChars: this.options.maxArgsChars,
          publicUrl: this.options.publicUrl,
          grants: await this.grantsFor(request),
        }),
      });
    } catch (error) {
      throw toChannelError(error, 'chat.update');
    }
  }

  /** Mounts `POST /channels/slack/events`: our replay guard, then Bolt's receiver (signature check, ack, listeners). */
  /** A policy reminder: a reply in the card's thread, so the approvers are notified again without a second card. */
  async remind(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = parseMessageRef(card.messageRef);
    if (!ref) throw new PermanentChannelError(`slack: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    try {
      await this.client.chat.postMessage({
        channel: ref.channel,
        thread_ts: ref.ts,
        text: escapeMrkdwn(reminderText(request)),
        unfurl_links: false,
        unfurl_media: false,
      });
    } catch (error) {
      throw toChannelError(error, 'chat.postMessage');
    }
  }

  /** The standing-grant buttons a pending request's policy rule offers (none once it is final). */
  private async grantsFor(request: ConfirmationRequest): Promise<GrantButton[]> {
    const host = this.host;
    if (request.status !== 'pending' || !host?.grantOffers || !host.events) return [];
    return host.grantOffers(await host.events(request.id));
  }

  mount(router: Router, gateway: DecisionSink): void {
    this.host = gateway;
    if (this.socketMode || !this.options.signingSecret) return;
    const now = this.options.now ?? Date.now;
    router.post(
      SLACK_EVENTS_PATH,
      replayGuard({ logger: this.logger, now, windowS: this.options.replayWindowS }),
      slackPayloadGuard({ signingSecret: this.options.signingSecret, logger: this.logger, now }),
    );
    const receiver = new ExpressReceiver({
      signingSecret: this.options.signingSecret,
      endpoints: SLACK_EVENTS_PATH,
      router,
      logger: slackLogger(this.logger),
      processBeforeResponse: false,
    });
    this.bolt = new App({ ...this.appOptions(), receiver });
    registerInteractions(this.bolt, { gateway, client: this.client, logger: this.logger });
  }

  /** Connects over Socket Mode when an app token is configured; otherwise taps come through {@link mount}. */
  async start(gateway: DecisionSink): Promise<void> {
    this.host = gateway;
    if (!this.socketMode) return;
    // Our own receiver, so that apps.connections.open also goes to SLACK_API_URL.
    const receiver = new SocketModeReceiver({
      appToken: this.options.appToken!,
      logger: slackLogger(this.logger),
      installerOptions: { clientOptions: this.clientOptions },
    });
    this.bolt = new App({ ...this.appOptions(), socketMode: true, receiver });
    registerInteractions(this.bolt, { gateway, client: this.client, logger: this.logger });
    await this.bolt.start();
    this.logger.info('slack socket mode connected');
  }

  async stop(): Promise<void> {
    if (this.socketMode && this.bolt) await this.bolt.stop();
    this.bolt = null;
  }

  private appOptions(): AppOptions {
    const knowsBot = Boolean(this.options.botId && this.options.botUserId);
    return {
      token: this.options.botToken,
      botId: this.options.botId,
      botUserId: this.options.botUserId,
      // Without both bot ids Bolt asks auth.test; do that at the first tap, not as a stray promise at start-up.
      tokenVerificationEnabled: knowsBot,
      clientOptions: this.clientOptions,
      logger: slackLogger(this.logger),
      convoStore: false,
    };
  }
}

/** Creates the Slack channel. */
export function createSlackChannel(options: SlackChannelOptions): SlackChannel {
  return new SlackChannel(options);
}
