/**
 * Socket Mode: with an app token the channel opens a connection through `apps.connections.open` (at SLACK_API_URL)
 * and receives taps over the WebSocket instead of HTTP; each envelope is acknowledged and decided exactly like an
 * HTTP tap. No HTTP route is mounted then.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockActionsPayload } from '../../fakes/slack/callbacks.js';
import { SLACK_ACTIONS } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

describe('slack socket mode', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  it('receives a tap over the socket, acknowledges it and decides', async () => {
    env = await startSlackGateway({ slack: { appToken: 'xapp-fake-token', signingSecret: undefined } });
    expect(env.slack.fake.callsTo('apps.connections.open').map((c) => c.token)).toEqual(['xapp-fake-token']);
    await eventually(() => expect(env.slack.fake.socketMode.connected).toBe(1));
    const request = await env.file({ approvers: ['slack:UBOSS'] });
    const message = env.slack.messageFor(request);
    const tap = (userId: string) =>
      env.slack.fake.socketMode.pushInteractive(
        blockActionsPayload({
          userId,
          channel: message.channel,
          ts: message.ts,
          actionId: SLACK_ACTIONS.approve,
          value: `${request.id}:${request.nonce}`,
          responseUrl: env.slack.fake.responseUrl(),
        }),
      );

    const refused = tap('UINTERN');
    await eventually(() => expect(env.slack.fake.socketMode.received.map((m) => m.envelope_id)).toContain(refused));
    await eventually(() =>
      expect(String(env.slack.fake.callsTo('chat.postEphemeral')[0]?.params.text)).toMatch(/not an approver/),
    );
    expect((await env.get(request.id)).status).toBe('pending');

    const accepted = tap('UBOSS');
    await eventually(() => expect(env.slack.fake.socketMode.received.map((m) => m.envelope_id)).toContain(accepted));
    await eventually(async () =>
      expect(await env.get(request.id)).toMatchObject({
        status: 'approved',
        respondedBy: 'slack:UBOSS',
        respondedVia: 'slack',
      }),
    );
    await eventually(() => expect(env.slack.fake.card(`${message.channel}:${message.ts}`)?.actionable).toBe(false));

    const http = await fetch(`${env.server.url}/channels/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });
    expect(http.status).toBe(404);
  });
});
