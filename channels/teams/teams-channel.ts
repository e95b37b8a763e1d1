/**
 * @module channels/teams/teams-channel
 * The Microsoft Teams channel: posts Adaptive Cards to conversations the bot was installed in (their serviceUrl comes
 * from the conversation store), rewrites them with `PUT …/activities/{id}` after every change, and receives taps on
 * its messaging endpoint (see `messages.ts`).
 */
import type { Router } from 'express';
import { pino, type Logger } from 'pino';
import {
  PermanentChannelError,
  type CardRef,
  type Channel,
  type ChannelHost,
  type GrantButton,
} from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { ADAPTIVE_CARD, adaptiveCard, type AdaptiveCard } from './card.js';
import { BotConnector } from './connector.js';
import { MemoryTeamsConversationStore, type TeamsConversationStore } from './conversations.js';
import { mountMessages } from './messages.js';
import { BOT_FRAMEWORK_OPENID_METADATA, MICROSOFT_LOGIN_URL, type TeamsChannelOptions } from './options.js';
import { TeamsTokenVerifier } from './verify.js';

/** A message reference: `<activity id>|<conversation id>` (conversation ids hold `:` and `;`, activity ids do not hold `|`). */
export function formatMessageRef(conversationId: string, activityId: string): string {
  return `${activityId}|${conversationId}`;
}

/** Splits a message reference; null when it is not one. */
export function parseMessageRef(ref: string): { conversationId: string; activityId: string } | null {
  const at = ref.indexOf('|');
  return at > 0 && at < ref.length - 1 ? { activityId: ref.slice(0, at), conversationId: ref.slice(at + 1) } : null;
}

/**
 * The Teams channel adapter.
 * @example
 * const teams = new TeamsChannel({ appId: '…', appPassword: '…', tenantId: '…', defaultTarget: '19:…@thread.tacv2' });
 */
export class TeamsChannel implements Channel {
  readonly name = 'teams';
  readonly defaultTarget?: string;
  /** Where conversation references are kept. */
  readonly conversations: TeamsConversationStore;
  private readonly logger: Logger;
  private readonly connector: BotConnector;
  private host: ChannelHost | null = null;

  constructor(private readonly options: TeamsChannelOptions) {
    this.defaultTarget = options.defaultTarget;
    const logger = options.logger ?? pino({ level: 'silent' });
    this.logger = logger.bindings().channel === 'teams' ? logger : logger.child({ channel: 'teams' });
    this.conversations = options.conversations ?? new MemoryTeamsConversationStore();
    this.connector = new BotConnector({ ...options, loginUrl: options.loginUrl ?? MICROSOFT_LOGIN_URL });
  }

  async send(request: ConfirmationRequest, target: string): Promise<string> {
    const ref = await this.reference(target);
    const activityId = await this.connector.sendActivity(ref.serviceUrl, target, await this.activity(request));
    return formatMessageRef(target, activityId);
  }

  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const ref = parseMessageRef(card.messageRef);
    if (!ref) throw new PermanentChannelError(`teams: not a message reference: ${card.messageRef}`, 'bad_message_ref');
    const conversation = await this.reference(ref.conversationId);
    await this.connector.updateActivity(
      conversation.serviceUrl,
      ref.conversationId,
      ref.activityId,
      await this.activity(request),
    );
  }

  /** Mounts `POST /channels/teams/messages`. */
  mount(router: Router, host: ChannelHost): void {
    this.host = host;
    const verifier = new TeamsTokenVerifier({
      appId: this.options.appId,
      openIdMetadataUrl: this.options.openIdMetadataUrl ?? BOT_FRAMEWORK_OPENID_METADATA,
      now: () => host.now(),
    });
    mountMessages(router, {
      host,
      verifier,
      conversations: this.conversations,
      tenantId: this.options.tenantId,
      logger: this.logger,
      card: (request, note) => this.card(request, note),
    });
  }

  async start(host: ChannelHost): Promise<void> {
    this.host ??= host;
  }

  /** The conversation's reference; a conversation the bot never heard from cannot be messaged (retrying will not help). */
  private async reference(conversationId: string) {
    const ref = await this.conversations.get(conversationId);
    if (!ref)
      throw new PermanentChannelError(
        `teams: unknown conversation ${conversationId} (install the app there first)`,
        'unknown_conversation',
      );
    return ref;
  }

  private async activity(request: ConfirmationRequest): Promise<Record<string, unknown>> {
    return { type: 'message', attachments: [{ contentType: ADAPTIVE_CARD, content: await this.card(request) }] };
  }

  private async card(request: ConfirmationRequest, note?: string): Promise<AdaptiveCard> {
    return adaptiveCard(request, {
      maxArgsChars: this.options.maxArgsChars,
      publicUrl: this.options.publicUrl,
      grants: await this.grantsFor(request),
      note,
    });
  }

  private async grantsFor(request: ConfirmationRequest): Promise<GrantButton[]> {
    const host = this.host;
    if (request.status !== 'pending' || !host?.grantOffers) return [];
    return host.grantOffers(await host.events(request.id));
  }
}

/** Creates the Teams channel. */
export function createTeamsChannel(options: TeamsChannelOptions): TeamsChannel {
  return new TeamsChannel(options);
}
