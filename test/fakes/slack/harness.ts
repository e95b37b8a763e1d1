/**
 * The Slack test harness: the real Slack channel (Bolt + web-api) pointed at a per-test {@link FakeSlack}, a
 * per-test signing secret, and taps built from the buttons the fake actually received, signed as Slack signs them.
 * Implements the shared {@link ChannelHarness} and adds what the Slack-specific tests need.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createSlackChannel, type SlackChannel, type SlackChannelOptions } from '../../../channels/slack/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { ChannelHarness } from '../../contracts/channel.contract.js';
import { eventually } from '../../helpers/eventually.js';
import type { TestServer } from '../../helpers/server.js';
import { buttonsOf } from './block-rules.js';
import { blockActionsPayload, postSlackCallback, viewSubmissionPayload, type CallbackOptions } from './callbacks.js';
import { FakeSlack, type FakeMessage } from './fake-slack.js';

/** The Slack harness: the contract's surface plus the fake, the secret and finer-grained taps. */
export interface SlackHarness extends ChannelHarness {
  channel: SlackChannel;
  fake: FakeSlack;
  signingSecret: string;
  /** The message Slack holds for `request` (in `target` when given), as first posted and as updated since. */
  messageFor(request: ConfirmationRequest, target?: string): FakeMessage;
  /** Taps the button `actionId` of the request's card as `userId` saw it when posted. Returns the raw response. */
  press(
    server: TestServer,
    request: ConfirmationRequest,
    actionId: string,
    userId: string,
    options?: PressOptions,
  ): Promise<Response>;
  /** Taps "Deny with reason", waits for the modal, types `reason` and submits it. Returns the submission's response. */
  denyWithReason(
    server: TestServer,
    request: ConfirmationRequest,
    userId: string,
    reason: string,
    options?: PressOptions,
  ): Promise<Response>;
}

/** Options of {@link SlackHarness.press}. */
export interface PressOptions {
  /** The card to tap (the one in this target). */
  target?: string;
  /** Replace the nonce in the button value. */
  nonce?: string;
  /** Bend the signature/timestamp/body. */
  callback?: CallbackOptions;
}

/** The action ids of a card: option buttons by index, and the reason button. */
export const SLACK_ACTIONS = {
  approve: 'tollgate_option_0',
  deny: 'tollgate_option_1',
  denyWithReason: 'tollgate_deny_reason',
} as const;

/** Builds a harness with a fresh fake and secret. `overrides` reach the channel options. */
export async function makeSlackHarness(overrides: Partial<SlackChannelOptions> = {}): Promise<SlackHarness> {
  const token = `xoxb-${randomBytes(6).toString('hex')}`;
  const fake = await FakeSlack.start({ token });
  const signingSecret = randomBytes(16).toString('hex');
  const channel = createSlackChannel({
    botToken: token,
    signingSecret,
    apiUrl: fake.apiUrl,
    botId: 'B0BOT',
    botUserId: 'U0BOT',
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...overrides,
  });

  function messageFor(request: ConfirmationRequest, target?: string): FakeMessage {
    const message = fake
      .allMessages()
      .find(
        (m) =>
          (!target || m.channel === target) &&
          buttonsOf(m.versions[0]!.blocks).some((b) => b.value.startsWith(`${request.id}:`)),
      );
    if (!message) throw new Error(`no slack card for request ${request.id}${target ? ` in ${target}` : ''}`);
    return message;
  }

  async function press(
    server: TestServer,
    request: ConfirmationRequest,
    actionId: string,
    userId: string,
    options: PressOptions = {},
  ): Promise<Response> {
    const message = messageFor(request, options.target);
    const button = buttonsOf(message.versions[0]!.blocks).find((b) => b.actionId === actionId);
    if (!button) throw new Error(`the card has no button ${actionId}`);
    const value = options.nonce === undefined ? button.value : `${request.id}:${options.nonce}`;
    const payload = blockActionsPayload({
      userId,
      channel: message.channel,
      ts: message.ts,
      actionId,
      value,
      responseUrl: fake.responseUrl(`${message.ts}-${userId}`),
      blocks: message.versions[0]!.blocks,
    });
    return postSlackCallback(`${server.url}/channels/slack/events`, signingSecret, payload, options.callback);
  }

  async function denyWithReason(
    server: TestServer,
    request: ConfirmationRequest,
    userId: string,
    reason: string,
    options: PressOptions = {},
  ): Promise<Response> {
    const before = fake.callsTo('views.open').length;
    const tapped = await press(server, request, SLACK_ACTIONS.denyWithReason, userId, options);
    if (tapped.status >= 300) return tapped;
    const opened = await eventually(() => {
      const call = fake.callsTo('views.open')[before];
      if (!call) throw new Error('views.open was not called');
      return call;
    });
    const view = opened.params.view as Record<string, unknown>;
    const payload = viewSubmissionPayload({ userId, view: { ...view, id: 'V0MODAL' }, values: { reason: { reason } } });
    return postSlackCallback(`${server.url}/channels/slack/events`, signingSecret, payload);
  }

  return {
    channel,
    fake,
    signingSecret,
    target: 'C0APPROVALS',
    messageFor,
    press,
    denyWithReason,
    async card(messageRef) {
      const card = fake.card(messageRef);
      return card && { text: card.text, actionable: card.actionable };
    },
    async tap(server, request, decision, userId, options = {}) {
      const response =
        options.reason !== undefined && decision === 'deny'
          ? await denyWithReason(server, request, userId, options.reason, { nonce: options.nonce })
          : await press(server, request, SLACK_ACTIONS[decision], userId, { nonce: options.nonce });
      return response.status;
    },
    async forgedTap(server, request, decision, userId) {
      const response = await press(server, request, SLACK_ACTIONS[decision], userId, {
        callback: { secret: 'not-the-signing-secret' },
      });
      return response.status;
    },
    forgedStatus: 401,
    async close() {
      await channel.stop();
      await fake.close();
    },
  };
}
