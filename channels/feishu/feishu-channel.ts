/**
 * @module channels/feishu/feishu-channel
 * The Feishu/Lark channel: sends approval cards with the real SDK's `lark.Client`, patches them after every state
 * change, and receives taps over signed HTTP callbacks or the SDK's long connection (`lark.WSClient`).
 */
import * as lark from '@larksuiteoapi/node-sdk';
import type { Router } from 'express';
import { pino, type Logger } from 'pino';
import type { CardRef, Channel, ChannelHost, DecisionSink, GrantButton } from '../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { errorForThrown, expectOk, isCredentialError, TokenRejectedError, type FeishuReply } from './api-errors.js';
import { createCardActionHandler, mountCallbackRoute } from './callbacks.js';
import { approvalCard, notFoundCard, reminderCard, type FeishuCard } from './card-json.js';
import { reminderText } from '../../src/channel/card.js';
import type { FeishuOptions } from './options.js';
import { parseTarget, sendUuid } from './targets.js';
import { TokenCache } from './token-cache.js';
import { NonceCache } from './verify.js';

/** The part of `lark.WSClient` the channel uses. */
export interface WsClientLike {
  start(params: { eventDispatcher: lark.EventDispatcher }): Promise<void> | void;
  close(params?: { force?: boolean }): void;
}

/** Test seams and collaborators. */
export interface FeishuChannelDeps {
  logger?: Logger;
  /** Milliseconds since the epoch; for the replay window (default `Date.now`). */
  now?: () => number;
  /** Builds the long-connection client (default `new lark.WSClient(params)`). */
  wsClientFactory?: (params: { appId: string; appSecret: string; domain: string }) => WsClientLike;
  /** How long a tap may take before the approver gets a "still working" toast (default 2500 ms). */
  answerWithinMs?: number;
}

/** The Feishu/Lark channel adapter. */
export class FeishuChannel implements Channel {
  readonly name = 'feishu';
  readonly defaultTarget?: string;
  /** The SDK client (exposed for diagnostics and tests). */
  readonly client: lark.Client;
  /** Receives verified callbacks from the HTTP route and from the long connection. */
  readonly dispatcher: lark.EventDispatcher;
  private readonly logger: Logger;
  private readonly tokens: TokenCache;
  private readonly now: () => number;
  private sink: (DecisionSink & Partial<Pick<ChannelHost, 'events' | 'grantOffers'>>) | null = null;
  private ws: WsClientLike | null = null;

  constructor(
    private readonly options: FeishuOptions,
    private readonly deps: FeishuChannelDeps = {},
  ) {
    this.logger = (deps.logger ?? pino({ level: 'silent' })).child({ channel: 'feishu' });
    this.now = deps.now ?? Date.now;
    this.defaultTarget = options.defaultTarget;
    this.tokens = new TokenCache(this.now);
    const sdkLogger = sanitizedSdkLogger(this.logger);
    this.client = new lark.Client({
      appId: options.appId,
      appSecret: options.appSecret,
      domain: options.domain,
      cache: this.tokens,
      httpInstance: withTimeout(options.requestTimeoutMs),
      logger: sdkLogger,
      loggerLevel: lark.LoggerLevel.warn,
    });
    this.dispatcher = new lark.EventDispatcher({ logger: sdkLogger, loggerLevel: lark.LoggerLevel.warn }).register({
      'card.action.trigger': createCardActionHandler({
        sink: () => this.sink,
        render: (request) => this.cardFor(request),
        notFound: () => notFoundCard(options.language),
        language: options.language,
        logger: this.logger,
        answerWithinMs: deps.answerWithinMs ?? 2500,
      }),
    });
  }

  /** The card JSON of `request` as this channel words it. */
  render(request: ConfirmationRequest, grants: readonly GrantButton[] = []): FeishuCard {
    return approvalCard(request, {
      language: this.options.language,
      maxArgsChars: this.options.maxArgsChars,
      publicUrl: this.options.publicUrl,
      grants,
    });
  }

  /** The card with the grant buttons the request's policy rule offers while it is pending. */
  private async cardFor(request: ConfirmationRequest): Promise<FeishuCard> {
    const sink = this.sink;
    if (request.status !== 'pending' || !sink?.grantOffers || !sink.events) return this.render(request);
    return this.render(request, sink.grantOffers(await sink.events(request.id)));
  }

  /** An open id (`ou_…`), said outright so `im.message.create` sends a direct message whatever the id looks like. */
  directTarget(account: string): string {
    return `open_id:${account}`;
  }

  /** The open id of the user with `email` (contact API `batch_get_id`; the app needs the "get user ID" permission). */
  async accountByEmail(email: string): Promise<string | null> {
    const data = await this.call('look up user by email', () =>
      this.client.contact.user.batchGetId({ params: { user_id_type: 'open_id' }, data: { emails: [email] } }),
    );
    // Feishu answers an unknown address with the address and no user_id.
    return data.user_list?.find((u) => u.email?.toLowerCase() === email.toLowerCase())?.user_id ?? null;
  }

  async send(request: ConfirmationRequest, target: string): Promise<string | null> {
    const { receiveIdType, receiveId } = parseTarget(target);
    const card = await this.cardFor(request);
    const data = await this.call('send card', () =>
      this.client.im.message.create({
        params: { receive_id_type: receiveIdType },
        // The same uuid on every retry: Feishu returns the first message instead of posting a second card.
        data: {
          receive_id: receiveId,
          msg_type: 'interactive',
          content: JSON.stringify(card),
          uuid: sendUuid(request.id, target),
        },
      }),
    );
    if (!data.message_id) throw new Error('Feishu send card: answer without message_id');
    return data.message_id;
  }

  async update(request: ConfirmationRequest, card: CardRef): Promise<void> {
    const content = JSON.stringify(await this.cardFor(request));
    await this.call('update card', () =>
      this.client.im.message.patch({ path: { message_id: card.messageRef }, data: { content } }),
    );
  }

  /** A policy reminder: a reply to the card's message, so the chat is notified again without a second card. */
  async remind(request: ConfirmationRequest, card: CardRef): Promise<void> {
    // A plain-text card, not a `text` message: Feishu would turn `<at user_id="all">` in a tool name into an @all.
    const content = JSON.stringify(reminderCard(reminderText(request)));
    await this.call('remind', () =>
      this.client.im.message.reply({
        path: { message_id: card.messageRef },
        data: { msg_type: 'interactive', content },
      }),
    );
  }

  mount(router: Router, gateway: DecisionSink): void {
    this.sink = gateway;
    if (this.options.mode !== 'webhook') return;
    if (!this.options.encryptKey || !this.options.verificationToken) {
      throw new Error('Feishu webhook mode needs FEISHU_ENCRYPT_KEY and FEISHU_VERIFICATION_TOKEN to verify callbacks');
    }
    mountCallbackRoute(router, {
      dispatcher: this.dispatcher,
      logger: this.logger,
      verify: {
        encryptKey: this.options.encryptKey,
        verificationToken: this.options.verificationToken,
        appId: this.options.appId,
        replayWindowS: this.options.replayWindowS,
        now: this.now,
        nonces: new NonceCache(this.options.replayWindowS * 1000),
        shared: this.options.marks,
      },
    });
  }

  async start(gateway: DecisionSink): Promise<void> {
    this.sink = gateway;
    if (this.options.mode !== 'ws' || this.ws) return;
    const params = { appId: this.options.appId, appSecret: this.options.appSecret, domain: this.options.domain };
    this.ws =
      this.deps.wsClientFactory?.(params) ??
      new lark.WSClient({ ...params, logger: sanitizedSdkLogger(this.logger), loggerLevel: lark.LoggerLevel.warn });
    // The connection is authenticated with the app credentials; its events skip the HTTP signature checks.
    await this.ws.start({ eventDispatcher: this.dispatcher });
    this.logger.info('feishu long connection started');
  }

  async stop(): Promise<void> {
    this.ws?.close({ force: true });
    this.ws = null;
  }

  /** Runs an Open API call: `code != 0` is a failure, thrown errors are classified, refused tokens dropped. */
  private async call<T>(operation: string, fn: () => Promise<FeishuReply<T>>): Promise<T> {
    let reply: FeishuReply<T>;
    try {
      reply = await fn();
    } catch (error) {
      throw this.failed(errorForThrown(operation, error));
    }
    try {
      return expectOk(operation, reply);
    } catch (error) {
      throw this.failed(error as Error);
    }
  }

  private failed(error: Error): Error {
    if (error instanceof TokenRejectedError) this.tokens.clear();
    const credentials = isCredentialError(error);
    this.logger[credentials ? 'error' : 'warn'](
      { err: error.message },
      credentials ? 'feishu rejected FEISHU_APP_ID/FEISHU_APP_SECRET' : 'feishu api call failed',
    );
    return error;
  }
}

/** Creates the channel, or returns null when `options` is null (Feishu not configured). */
export function createFeishuChannel(
  options: FeishuOptions | null,
  logger?: Logger,
  deps: Omit<FeishuChannelDeps, 'logger'> = {},
): FeishuChannel | null {
  return options ? new FeishuChannel(options, { ...deps, logger }) : null;
}

/**
 * The SDK logs whole errors, and an axios error's config holds the app secret (token requests) or the bearer
 * token: pass on only strings and error messages.
 */
function sanitizedSdkLogger(logger: Logger): lark.Logger {
  const child = logger.child({ component: 'lark-sdk' });
  const text = (msg: unknown[]) =>
    msg
      .flat()
      .map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : ''))
      .filter(Boolean)
      .join(' ');
  return {
    error: (...msg) => child.warn(text(msg)),
    warn: (...msg) => child.warn(text(msg)),
    info: (...msg) => child.debug(text(msg)),
    debug: (...msg) => child.debug(text(msg)),
    trace: (...msg) => child.trace(text(msg)),
  };
}

/** The SDK's axios instance with a timeout on every call (it sets none). */
function withTimeout(timeoutMs: number): lark.HttpInstance {
  // The default instance unwraps `response.data` in an interceptor, which is what makes it an HttpInstance.
  const base = lark.defaultHttpInstance as unknown as lark.HttpInstance;
  return {
    request: (opts) => base.request({ timeout: timeoutMs, ...opts }),
    get: (url, opts) => base.get(url, { timeout: timeoutMs, ...opts }),
    delete: (url, opts) => base.delete(url, { timeout: timeoutMs, ...opts }),
    head: (url, opts) => base.head(url, { timeout: timeoutMs, ...opts }),
    options: (url, opts) => base.options(url, { timeout: timeoutMs, ...opts }),
    post: (url, data, opts) => base.post(url, data, { timeout: timeoutMs, ...opts }),
    put: (url, data, opts) => base.put(url, data, { timeout: timeoutMs, ...opts }),
    patch: (url, data, opts) => base.patch(url, data, { timeout: timeoutMs, ...opts }),
  };
}
