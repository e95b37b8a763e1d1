/**
 * The Discord test harness: the real Discord channel (`@discordjs/rest`) pointed at a per-test {@link FakeDiscord},
 * and taps built from the buttons the fake actually received, signed with the application's key as Discord signs
 * them. Implements the shared {@link ChannelHarness} and adds what the Discord-specific tests need.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import {
  createDiscordChannel,
  type DiscordChannel,
  type DiscordChannelOptions,
} from '../../../channels/discord/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { ChannelHarness } from '../../contracts/channel.contract.js';
import type { TestServer } from '../../helpers/server.js';
import { FakeDiscord, type FakeMessage, type InteractionResult } from './fake-discord.js';
import { buttonsOf, modalProblem } from './message-rules.js';
import type { SignOptions } from './signer.js';

/** The application id the harness configures. */
export const APPLICATION_ID = '1100000000000000001';
/** The channel cards go to unless a request names another. */
export const APPROVALS_CHANNEL = '1100000000000000100';

/** Options of {@link DiscordHarness.press}. */
export interface PressOptions {
  /** The card to tap (the one in this channel). */
  channelId?: string;
  /** Replace the nonce in the button's custom_id. */
  nonce?: string;
  /** Bend the signature/timestamp/body. */
  sign?: SignOptions;
  /** Tap from a DM (`user`) rather than a guild channel (`member.user`). */
  dm?: boolean;
}

/** The Discord harness: the contract's surface plus the fake and finer-grained taps. */
export interface DiscordHarness extends ChannelHarness {
  channel: DiscordChannel;
  fake: FakeDiscord;
  /** The message Discord holds for `request` (in `channelId` when given). */
  messageFor(request: ConfirmationRequest, channelId?: string): FakeMessage;
  /** Taps the button whose label is `label` (or the option at that index) on the request's card, as `userId`. */
  press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    options?: PressOptions,
  ): Promise<InteractionResult>;
  /** Taps "Deny with reason…", checks the dialog Discord would show, types `reason` and submits it. Returns the submission's answer. */
  denyWithReason(
    server: TestServer,
    request: ConfirmationRequest,
    userId: string,
    reason: string,
    options?: PressOptions,
  ): Promise<InteractionResult>;
  /** Posts any interaction payload, signed (or bent by `sign`). */
  post(server: TestServer, payload: Record<string, unknown>, sign?: SignOptions): Promise<InteractionResult>;
}

/** Builds a harness with a fresh fake and key. `overrides` reach the channel options. */
export async function makeDiscordHarness(overrides: Partial<DiscordChannelOptions> = {}): Promise<DiscordHarness> {
  const token = `bot-${randomBytes(8).toString('hex')}`;
  const fake = await FakeDiscord.start({ token });
  const channel = createDiscordChannel({
    botToken: token,
    publicKey: fake.signer.publicKeyHex,
    applicationId: APPLICATION_ID,
    apiUrl: fake.apiUrl,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...overrides,
  });
  // Every interaction Discord sends has an id of its own; the endpoint refuses one it has seen as a replay.
  let interactions = 0;
  const endpoint = (server: TestServer) => `${server.url}/channels/discord/interactions`;

  function messageFor(request: ConfirmationRequest, channelId?: string): FakeMessage {
    const message = fake
      .allMessages()
      .find(
        (m) =>
          (!channelId || m.channelId === channelId) &&
          buttonsOf(m.versions[0]!).some((b) => b.customId.includes(`:${request.id}:`)),
      );
    if (!message) throw new Error(`no discord card for request ${request.id}${channelId ? ` in ${channelId}` : ''}`);
    return message;
  }

  function interaction(
    message: FakeMessage,
    userId: string,
    data: Record<string, unknown>,
    type: number,
    options: PressOptions,
  ): Record<string, unknown> {
    const user = { id: userId, username: `user${userId}`, global_name: `User ${userId}`, discriminator: '0' };
    return {
      id: String(1_300_000_000_000_000_000n + BigInt(++interactions)),
      application_id: APPLICATION_ID,
      type,
      token: randomBytes(24).toString('base64url'),
      version: 1,
      channel_id: message.channelId,
      ...(options.dm ? { user } : { guild_id: '1100000000000000002', member: { user, roles: [], permissions: '0' } }),
      message: { id: message.id, channel_id: message.channelId, ...message.versions.at(-1) },
      data,
    };
  }

  async function denyWithReason(
    server: TestServer,
    request: ConfirmationRequest,
    userId: string,
    reason: string,
    options: PressOptions = {},
  ): Promise<InteractionResult> {
    const opened = await press(
      server,
      request,
      buttonsOf(messageFor(request, options.channelId).versions[0]!).findIndex((b) => b.customId.startsWith('tg:r0:')),
      userId,
      options,
    );
    if (opened.body?.type !== 9) return opened;
    const modal = opened.body.data as { custom_id: string; components: { components: { custom_id: string }[] }[] };
    const problem = modalProblem(modal);
    if (problem) throw new Error(`Discord would refuse this modal: ${problem}`);
    const input = modal.components[0]!.components[0]!;
    const data = {
      custom_id: modal.custom_id,
      components: [{ type: 1, components: [{ type: 4, custom_id: input.custom_id, value: reason }] }],
    };
    return fake.interact(
      endpoint(server),
      interaction(messageFor(request, options.channelId), userId, data, 5, options),
      messageFor(request, options.channelId),
      options.sign,
    );
  }

  async function press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    options: PressOptions = {},
  ): Promise<InteractionResult> {
    const message = messageFor(request, options.channelId);
    const buttons = buttonsOf(message.versions[0]!);
    const found = typeof button === 'number' ? buttons[button] : buttons.find((b) => b.label === button);
    if (!found) throw new Error(`the card has no button ${button}`);
    const customId =
      options.nonce === undefined ? found.customId : found.customId.replace(/:[\w-]+$/, `:${options.nonce}`);
    const payload = interaction(message, userId, { custom_id: customId, component_type: 2 }, 3, options);
    return fake.interact(endpoint(server), payload, message, options.sign);
  }

  return {
    channel,
    fake,
    target: APPROVALS_CHANNEL,
    messageFor,
    press,
    denyWithReason,
    post: (server, payload, sign) => fake.interact(endpoint(server), payload, undefined, sign),
    async card(messageRef) {
      const card = fake.card(messageRef);
      return card && { text: card.text, actionable: card.actionable };
    },
    async tap(server, request, decision, userId, options = {}) {
      if (decision === 'deny' && options.reason !== undefined)
        return (await denyWithReason(server, request, userId, options.reason, { nonce: options.nonce })).status;
      return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { nonce: options.nonce })).status;
    },
    async forgedTap(server, request, decision, userId) {
      return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { sign: { forged: true } })).status;
    },
    forgedStatus: 401,
    async close() {
      await channel.stop();
      await fake.close();
    },
  };
}
