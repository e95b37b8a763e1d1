// Signed but malformed Slack interactivity payloads: a correct signature proves the sender, not the shape. Each must be
// answered 200 (or 400 for a body that is not a Slack payload at all), logged, and change nothing — never a 500.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { postSlackCallback, slackSignature } from '../../fakes/slack/callbacks.js';
import { startSlackGateway, type SlackGateway } from '../slack/setup.js';

let env: SlackGateway;
let request: ConfirmationRequest;
beforeEach(async () => {
  env = await startSlackGateway();
  request = await env.file();
});
afterEach(async () => {
  await env.close();
});

const url = () => `${env.server.url}/channels/slack/events`;

describe('signed but malformed Slack payloads', () => {
  it.each([
    ['payload=null', null],
    ['a shortcut', { type: 'shortcut', callback_id: 'x', user: { id: 'UALICE' } }],
    ['a view_submission with view:null', { type: 'view_submission', user: { id: 'UALICE' }, view: null }],
    ['block_actions with actions:"x"', { type: 'block_actions', user: { id: 'UALICE' }, actions: 'x' }],
    [
      'block_actions with no user',
      { type: 'block_actions', actions: [{ type: 'button', action_id: 'tollgate_option_0', value: 'x' }] },
    ],
    ['a number', 42],
  ])('%s → no 5xx, nothing changes', async (_name, payload) => {
    const response = await postSlackCallback(url(), env.slack.signingSecret, payload);
    expect(response.status).toBeLessThan(500);
    expect([200, 400]).toContain(response.status);
    expect((await env.get(request.id)).status).toBe('pending');
    expect(await env.eventTypes(request.id)).toEqual(['created', 'delivered']);
  });

  it('a signed body whose payload is not JSON → 400', async () => {
    const body = 'payload=%7Bnot-json';
    const ts = Math.floor(Date.now() / 1000);
    const response = await fetch(url(), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(ts),
        'x-slack-signature': slackSignature(env.slack.signingSecret, ts, body),
      },
      body,
    });
    expect(response.status).toBe(400);
    expect((await env.get(request.id)).status).toBe('pending');
  });
});
