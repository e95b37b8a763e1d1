/**
 * Discord under policies and the people directory: a rule's standing grants become extra buttons whose tap approves
 * and grants; `remind_after_s` replies to the card; a request whose approvers are people reaches each one by DM on
 * Discord; and a card posted before a restart still decides, and is still edited, after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordChannel } from '../../../channels/discord/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { APPLICATION_ID } from '../../fakes/discord/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

const ALICE = '900000000000000001';
const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy_service }
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, args.service] }
  - name: payments
    match: { tool: pay_invoice }
    approvers: ["person:alice"]
    timeout_s: 3600
    remind_after_s: 600
people:
  - { id: alice, accounts: { discord: "${ALICE}" } }
`;

describe('discord with policies, people and restarts', () => {
  let env: DiscordGateway;
  let dir: string | undefined;

  afterEach(async () => {
    await env.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("shows the rule's grant as a button; its tap approves, and the next matching request is approved by the grant", async () => {
    env = await startDiscordGateway({ server: { policy: POLICY } });
    const request = await env.file();
    const result = await env.discord.press(env.server, request, 'Approve for 1 hour', ALICE);
    expect(result.body).toMatchObject({ type: 7, data: { components: [] } });
    expect((await env.get(request.id)).status).toBe('approved');
    expect((await env.server.store.events(request.id)).map((e) => e.type)).toContain('grant_created');
    const again = await env.server.api('/v1/requests', {
      body: {
        tool_name: 'deploy_service',
        tool_args: { service: 'billing', version: '9' },
        channels: [{ type: 'discord', target: env.discord.target }],
      },
    });
    expect(((await again.json()) as { status: string }).status).toBe('approved');
  });

  it('sends a request for a person to their Discord DM, and reminds there with a reply to the card', async () => {
    const clock = new ManualClock(Date.now());
    env = await startDiscordGateway({
      server: { policy: POLICY, clock, scheduler: new InProcessScheduler({ clock, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    const { request } = await env.server.gateway.request({ toolName: 'pay_invoice', toolArgs: { invoice: 'INV-7' } });
    await eventually(async () => {
      await clock.advance(0);
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'discord')?.status).toBe('sent');
    });
    const dm = env.discord.fake.dmChannel(ALICE)!;
    const card = env.discord.messageFor(request, dm);
    await clock.advance(600_000);
    const reply = await eventually(async () => {
      await clock.advance(0);
      const [r] = env.discord.fake.callsTo('POST', new RegExp(`^/channels/${dm}/messages$`)).slice(1);
      expect(r).toBeDefined();
      return r!;
    });
    expect(reply.body).toMatchObject({
      message_reference: { message_id: card.id },
      allowed_mentions: { parse: [] },
      content: expect.stringContaining('Reminder'),
    });
  });

  it('decides from a card posted before a restart, and edits it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-discord-restart-'));
    const dbPath = join(dir, 'tollgate.db');
    env = await startDiscordGateway({ server: { dbPath } });
    const request = await env.file();
    await env.server.close();
    // A new process: a new channel on the same application and the same database.
    const channel = createDiscordChannel({
      botToken: env.discord.fake.token,
      publicKey: env.discord.fake.signer.publicKeyHex,
      applicationId: APPLICATION_ID,
      apiUrl: env.discord.fake.apiUrl,
      logger: pino({ level: 'silent' }),
    });
    const server = await startTestServer({ dbPath, channels: [channel] });
    env.server = server;
    const result = await env.discord.press(server, request, 'Deny', ALICE);
    expect(result.body).toMatchObject({ type: 7 });
    expect((await server.gateway.get(request.id))?.status).toBe('denied');
    await eventually(() => expect(env.discord.fake.callsTo('PATCH', /messages/)).toHaveLength(1));
    expect(env.discord.fake.card(env.refOf(request))).toMatchObject({
      actionable: false,
      text: expect.stringContaining(`Denied by discord:${ALICE}`),
    });
  });
});
