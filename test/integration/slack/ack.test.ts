/**
 * Slack wants an answer within 3 s: the adapter acknowledges a tap before it asks the gateway anything, so a slow
 * decision (a busy database, a remote store) never makes Slack show the approver an error. Here the decision is
 * held back until the tap's HTTP response has arrived.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannel } from '../../../channels/slack/index.js';
import type { DecideOutcome, DecisionEvent, DecisionSink } from '../../../src/channel/channel.js';
import { blockActionsPayload, postSlackCallback } from '../../fakes/slack/callbacks.js';
import { FakeSlack } from '../../fakes/slack/fake-slack.js';
import { eventually } from '../../helpers/eventually.js';

describe('slack ack', () => {
  const cleanup: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('answers the tap before the decision is made, then tells the approver the outcome', async () => {
    const fake = await FakeSlack.start({ token: 'xoxb-ack' });
    cleanup.push(() => fake.close());
    const channel = createSlackChannel({
      botToken: 'xoxb-ack',
      signingSecret: 'ack-secret',
      apiUrl: fake.apiUrl,
      botId: 'B0BOT',
      botUserId: 'U0BOT',
    });

    const received: DecisionEvent[] = [];
    let release!: (outcome: DecideOutcome) => void;
    const held = new Promise<DecideOutcome>((resolve) => (release = resolve));
    const sink: DecisionSink = {
      decide: async (event) => {
        received.push(event);
        return held;
      },
      get: async () => null,
    };
    const app = express();
    const router = express.Router();
    channel.mount(router, sink);
    app.use(router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/channels/slack/events`;

    const payload = blockActionsPayload({
      userId: 'UALICE',
      channel: 'C0ONE',
      ts: '1700000000.000101',
      actionId: 'tollgate_option_0',
      value: 'req-1:nonce-1',
      responseUrl: fake.responseUrl(),
    });
    const response = await postSlackCallback(url, 'ack-secret', payload);
    expect(response.status).toBe(200);
    await eventually(() => expect(received).toHaveLength(1));
    // The response came back while the decision is still being made.
    expect(fake.callsTo('chat.postEphemeral')).toHaveLength(0);
    expect(received[0]).toEqual({
      requestId: 'req-1',
      nonce: 'nonce-1',
      decision: 'approve',
      option: undefined,
      actor: { channel: 'slack', userId: 'UALICE', name: 'ualice' },
    });

    release({ ok: false, code: 'already_decided', message: 'This request was already denied.' });
    await eventually(() =>
      expect(fake.callsTo('chat.postEphemeral')[0]?.params).toMatchObject({
        channel: 'C0ONE',
        user: 'UALICE',
        text: 'Nothing changed: This request was already denied.',
      }),
    );
  });
});
