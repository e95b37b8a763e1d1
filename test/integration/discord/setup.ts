/**
 * Shared set-up of the Discord integration tests: a gateway on a temp SQLite file with the real Discord channel (and
 * the web channel) pointed at a per-test fake Discord, and a way to file a request through the HTTP API and wait
 * until every Discord card of it is posted.
 */
import { expect } from 'vitest';
import type { DiscordChannelOptions } from '../../../channels/discord/index.js';
import { createWebChannel } from '../../../channels/web/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeDiscordHarness, type DiscordHarness } from '../../fakes/discord/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

/** A gateway with Discord on a fake. */
export interface DiscordGateway {
  discord: DiscordHarness;
  server: TestServer;
  /** Files a request through `POST /v1/requests` and waits until its Discord cards are sent. */
  file(body?: Record<string, unknown>): Promise<ConfirmationRequest>;
  /** The request as the gateway has it now. */
  get(id: string): Promise<ConfirmationRequest>;
  /** Event types of a request, oldest first. */
  eventTypes(id: string): Promise<string[]>;
  /** The reference (`<channel>:<message>`) of the request's card in `channelId` (the default channel when omitted). */
  refOf(request: ConfirmationRequest, channelId?: string): string;
  close(): Promise<void>;
}

/** Starts a gateway with Discord (cards in the harness's approvals channel unless a request names other targets). */
export async function startDiscordGateway(
  options: { discord?: Partial<DiscordChannelOptions>; server?: TestServerOptions; waitForCards?: boolean } = {},
): Promise<DiscordGateway> {
  const discord = await makeDiscordHarness(options.discord);
  const server = await startTestServer({ ...options.server, channels: [discord.channel, createWebChannel()] });
  const get = async (id: string) => (await server.gateway.get(id))!;
  return {
    discord,
    server,
    get,
    async file(body = {}) {
      const response = await server.api('/v1/requests', {
        body: {
          tool_name: 'deploy_service',
          tool_args: { service: 'billing', version: '1.4.2' },
          prompt: 'Deploy billing 1.4.2?',
          channels: [{ type: 'discord', target: discord.target }],
          ...body,
        },
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      if (options.waitForCards !== false) {
        await eventually(async () => {
          const cards = (await server.store.messages(id)).filter((m) => m.channel === 'discord');
          expect(cards.length).toBeGreaterThan(0);
          expect(cards.every((m) => m.status === 'sent')).toBe(true);
        });
      }
      return get(id);
    },
    async eventTypes(id) {
      return (await server.store.events(id)).map((e) => e.type);
    },
    refOf(request, channelId) {
      const message = discord.messageFor(request, channelId);
      return `${message.channelId}:${message.id}`;
    },
    async close() {
      await server.close();
      await discord.close();
    },
  };
}
