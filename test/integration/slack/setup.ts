/**
 * Shared set-up of the Slack integration tests: a gateway on a temp SQLite file with the real Slack channel (and the
 * web channel) pointed at a per-test fake Slack, and a way to file a request through the HTTP API and wait until
 * every Slack card of it is posted.
 */
import { expect } from 'vitest';
import type { SlackChannelOptions } from '../../../channels/slack/index.js';
import { createWebChannel } from '../../../channels/web/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeSlackHarness, type SlackHarness } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

/** A gateway with Slack on a fake. */
export interface SlackGateway {
  slack: SlackHarness;
  server: TestServer;
  /** Files a request through `POST /v1/requests` and waits until its Slack cards are sent. */
  file(body?: Record<string, unknown>): Promise<ConfirmationRequest>;
  /** The request as the gateway has it now. */
  get(id: string): Promise<ConfirmationRequest>;
  /** Event types of a request, oldest first. */
  eventTypes(id: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts a gateway with Slack (`C0APPROVALS` unless a request names other targets). */
export async function startSlackGateway(
  options: { slack?: Partial<SlackChannelOptions>; server?: TestServerOptions; waitForCards?: boolean } = {},
): Promise<SlackGateway> {
  const slack = await makeSlackHarness(options.slack);
  const server = await startTestServer({ ...options.server, channels: [slack.channel, createWebChannel()] });
  const get = async (id: string) => (await server.gateway.get(id))!;
  return {
    slack,
    server,
    get,
    async file(body = {}) {
      const response = await server.api('/v1/requests', {
        body: {
          tool_name: 'deploy_service',
          tool_args: { service: 'billing', version: '1.4.2' },
          prompt: 'Deploy billing 1.4.2?',
          channels: [{ type: 'slack', target: slack.target }],
          ...body,
        },
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      if (options.waitForCards !== false) {
        await eventually(async () => {
          const cards = (await server.store.messages(id)).filter((m) => m.channel === 'slack');
          expect(cards.length).toBeGreaterThan(0);
          expect(cards.every((m) => m.status === 'sent')).toBe(true);
        });
      }
      return get(id);
    },
    async eventTypes(id) {
      return (await server.store.events(id)).map((e) => e.type);
    },
    async close() {
      await server.close();
      await slack.close();
    },
  };
}
