/**
 * Shared set-up of the Telegram integration tests: a gateway on a temp SQLite file with the real Telegram channel (and
 * the web channel) pointed at a per-test fake Bot API, and a way to file a request through the HTTP API and wait until
 * every Telegram card of it is sent.
 */
import { expect } from 'vitest';
import type { TelegramChannelOptions } from '../../../channels/telegram/index.js';
import { createWebChannel } from '../../../channels/web/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeTelegramHarness, type TelegramHarness } from '../../fakes/telegram/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

/** A gateway with Telegram on a fake. */
export interface TelegramGateway {
  telegram: TelegramHarness;
  server: TestServer;
  /** Files a request through `POST /v1/requests` and waits until its Telegram cards are sent. */
  file(body?: Record<string, unknown>): Promise<ConfirmationRequest>;
  /** The request as the gateway has it now. */
  get(id: string): Promise<ConfirmationRequest>;
  /** Event types of a request, oldest first. */
  eventTypes(id: string): Promise<string[]>;
  /** The reference (`<chat>:<message>`) of the request's card in `chatId` (the default chat when omitted). */
  refOf(request: ConfirmationRequest, chatId?: string): string;
  close(): Promise<void>;
}

/** Options of {@link startTelegramGateway}. */
export interface TelegramGatewayOptions {
  mode?: 'webhook' | 'polling';
  channel?: Partial<TelegramChannelOptions>;
  server?: TestServerOptions;
  waitForCards?: boolean;
}

/** Starts a gateway with Telegram (cards in the harness's approvals chat unless a request names other targets). */
export async function startTelegramGateway(options: TelegramGatewayOptions = {}): Promise<TelegramGateway> {
  const telegram = await makeTelegramHarness({ mode: options.mode, channel: options.channel });
  const server = await startTestServer({ ...options.server, channels: [telegram.channel, createWebChannel()] });
  const get = async (id: string) => (await server.gateway.get(id))!;
  const env: TelegramGateway = {
    telegram,
    server,
    get,
    async file(body = {}) {
      const response = await server.api('/v1/requests', {
        body: {
          tool_name: 'deploy_service',
          tool_args: { service: 'billing', version: '1.4.2' },
          prompt: 'Deploy billing 1.4.2?',
          channels: [{ type: 'telegram', target: telegram.target }],
          ...body,
        },
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      if (options.waitForCards !== false) {
        await eventually(async () => {
          const cards = (await server.store.messages(id)).filter((m) => m.channel === 'telegram');
          expect(cards.length).toBeGreaterThan(0);
          expect(cards.every((m) => m.status === 'sent')).toBe(true);
        });
      }
      return get(id);
    },
    async eventTypes(id) {
      return (await server.store.events(id)).map((e) => e.type);
    },
    refOf(request, chatId) {
      const message = telegram.messageFor(request, chatId);
      return `${message.chatId}:${message.messageId}`;
    },
    async close() {
      // The server in use now: a restart test swaps in a new one.
      await env.server.close();
      await telegram.close();
    },
  };
  return env;
}
