/**
 * Shared set-up of the email integration tests: a gateway on a temp SQLite file with the real email channel (and the
 * web channel) sending to a per-test real SMTP server, and a way to file a request through the HTTP API and wait
 * until its mails are sent.
 */
import { expect } from 'vitest';
import type { EmailChannelOptions } from '../../../channels/email/index.js';
import { createWebChannel } from '../../../channels/web/index.js';
import type { Channel } from '../../../src/channel/channel.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeEmailHarness, OPS, type EmailHarness } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';

/** A gateway with email on a real SMTP server. */
export interface EmailGateway {
  email: EmailHarness;
  server: TestServer;
  /** Files a request through `POST /v1/requests` (mailed to {@link OPS} unless `channels` says otherwise) and waits until its mails are sent. */
  file(body?: Record<string, unknown>): Promise<ConfirmationRequest>;
  get(id: string): Promise<ConfirmationRequest>;
  /** Event types of a request, oldest first. */
  eventTypes(id: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts a gateway with email. `channels` adds other channels beside email and web. */
export async function startEmailGateway(
  options: {
    email?: Partial<EmailChannelOptions>;
    relayUrl?: (fakeUrl: string) => string;
    server?: TestServerOptions;
    channels?: Channel[];
    waitForMail?: boolean;
  } = {},
): Promise<EmailGateway> {
  const email = await makeEmailHarness(options.email, { url: options.relayUrl });
  const server = await startTestServer({
    ...options.server,
    channels: [email.channel, createWebChannel(), ...(options.channels ?? [])],
  });
  const get = async (id: string) => (await server.gateway.get(id))!;
  return {
    email,
    server,
    get,
    async file(body = {}) {
      const response = await server.api('/v1/requests', {
        body: {
          tool_name: 'deploy_service',
          tool_args: { service: 'billing', version: '1.4.2' },
          prompt: 'Deploy billing 1.4.2?',
          channels: [{ type: 'email', target: OPS }],
          ...body,
        },
      });
      expect(response.status).toBe(201);
      const { id } = (await response.json()) as { id: string };
      if (options.waitForMail !== false) {
        await eventually(async () => {
          const cards = (await server.store.messages(id)).filter((m) => m.channel === 'email');
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
      await email.close();
    },
  };
}
