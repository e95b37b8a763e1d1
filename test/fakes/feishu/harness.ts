/**
 * The Feishu channel against the fake Open API, with taps signed and encrypted as Feishu sends them. Used by the
 * channel contract suite and the Feishu integration tests. Every harness uses a fresh app id (the SDK caches
 * tenant tokens per app id).
 */
import { randomBytes } from 'node:crypto';
import type { ChannelHarness, SeenCard } from '../../contracts/channel.contract.js';
import type { TestServer } from '../../helpers/server.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import {
  BUTTON_NAMES,
  FEISHU_EVENTS_PATH,
  FeishuChannel,
  type FeishuChannelDeps,
  type FeishuOptions,
} from '../../../channels/feishu/index.js';
import { cardActionPayload, postCallback, signCallback, type CallbackSecrets, type SignOptions } from './callbacks.js';
import { FakeFeishu, findAll, visibleText } from './fake-feishu.js';

/** A tap's full answer. */
export interface TapAnswer {
  status: number;
  body: Record<string, unknown> | null;
}

/** Options of a tap. */
export interface TapOptions {
  nonce?: string;
  reason?: string;
  /** Change the envelope (e.g. a wrong token). */
  token?: string;
  sign?: SignOptions;
}

/** The Feishu harness, with access to the fake and the secrets. */
export interface FeishuHarness extends ChannelHarness {
  channel: FeishuChannel;
  fake: FakeFeishu;
  secrets: CallbackSecrets & { appSecret: string };
  /** Taps and returns the whole answer. */
  tapAnswer(
    server: TestServer,
    request: ConfirmationRequest,
    decision: 'approve' | 'deny',
    openId: string,
    options?: TapOptions,
  ): Promise<TapAnswer>;
  /** The callback URL of `server`. */
  eventsUrl(server: TestServer): string;
}

/** A fresh app id of the shape Feishu issues (`cli_` + 16 hex). */
export function freshAppId(): string {
  return `cli_${randomBytes(8).toString('hex')}`;
}

/** Starts a fake Feishu and builds a channel pointed at it. */
export async function makeFeishuHarness(
  overrides: Partial<FeishuOptions> = {},
  deps: FeishuChannelDeps = {},
): Promise<FeishuHarness> {
  const fake = await FakeFeishu.start();
  const secrets = {
    appId: freshAppId(),
    appSecret: `secret-${randomBytes(8).toString('hex')}`,
    encryptKey: `ek-${randomBytes(8).toString('hex')}`,
    verificationToken: `vt-${randomBytes(8).toString('hex')}`,
  };
  fake.registerApp(secrets.appId, secrets.appSecret);
  const channel = new FeishuChannel(
    {
      appId: secrets.appId,
      appSecret: secrets.appSecret,
      domain: fake.url,
      verificationToken: secrets.verificationToken,
      encryptKey: secrets.encryptKey,
      mode: 'webhook',
      language: 'en',
      replayWindowS: 300,
      requestTimeoutMs: 5000,
      ...overrides,
    },
    deps,
  );
  const eventsUrl = (server: TestServer) => `${server.url}${FEISHU_EVENTS_PATH}`;

  async function tapAnswer(
    server: TestServer,
    request: ConfirmationRequest,
    decision: 'approve' | 'deny',
    openId: string,
    options: TapOptions = {},
  ): Promise<TapAnswer> {
    const message = fake.messageFor(request.id);
    if (!message) throw new Error(`no Feishu card carries request ${request.id}`);
    const name = BUTTON_NAMES[decision];
    // Feishu sends back what the button on the card carries.
    const button = findAll(message.versions[0], 'button').find((b) => b.name === name);
    if (!button) throw new Error(`the card has no button named ${name}`);
    const value = {
      ...(button.behaviors as { value: Record<string, unknown> }[])[0]!.value,
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    };
    const payload = cardActionPayload(secrets, {
      openId,
      value,
      name,
      reason: options.reason,
      messageId: message.messageId,
      chatId: message.receiveId,
      token: options.token,
    });
    return postCallback(eventsUrl(server), signCallback(payload, secrets, options.sign));
  }

  return {
    channel,
    fake,
    secrets,
    target: 'oc_contract_chat',
    eventsUrl,
    tapAnswer,
    async card(messageRef: string): Promise<SeenCard | null> {
      const card = fake.card(messageRef);
      return card ? { text: visibleText(card), actionable: findAll(card, 'button').length > 0 } : null;
    },
    async tap(server, request, decision, userId, options = {}) {
      return (await tapAnswer(server, request, decision, userId, options)).status;
    },
    async forgedTap(server, request, decision, userId) {
      return (await tapAnswer(server, request, decision, userId, { sign: { signingKey: 'not-the-encrypt-key' } }))
        .status;
    },
    async close() {
      await channel.stop();
      await fake.close();
    },
  };
}
