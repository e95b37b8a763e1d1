/**
 * Every Slack callback is authenticated: a forged, unsigned, replayed, future-dated or tampered tap gets 401 and
 * changes nothing (no decision, no event, no message to anyone); a tap signed inside the window goes through.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { slackSignature } from '../../fakes/slack/callbacks.js';
import { SLACK_ACTIONS } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

describe('slack callback authentication', () => {
  let env: SlackGateway;
  const logLines: Record<string, unknown>[] = [];

  afterEach(async () => {
    await env.close();
    logLines.length = 0;
  });

  async function start() {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    env = await startSlackGateway({ slack: { logger: pino({ level: 'warn' }, sink) } });
    return env.file();
  }

  async function expectUnchanged(request: ConfirmationRequest) {
    expect((await env.get(request.id)).status).toBe('pending');
    expect(await env.eventTypes(request.id)).toEqual(['created', 'delivered']);
    expect(env.slack.fake.callsTo('chat.postEphemeral')).toHaveLength(0);
    expect(env.slack.fake.callsTo('chat.update')).toHaveLength(0);
  }

  const now = () => Math.floor(Date.now() / 1000);

  it('rejects a tap signed with another secret', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { secret: 'guessed-secret' },
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
    await expectUnchanged(request);
  });

  it('rejects an unsigned tap', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { unsigned: true },
    });
    expect(response.status).toBe(401);
    await expectUnchanged(request);
  });

  it('rejects a correctly signed tap replayed after the five-minute window', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { timestamp: now() - 6 * 60 },
    });
    expect(response.status).toBe(401);
    await expectUnchanged(request);
  });

  it('rejects a correctly signed tap dated in the future, with an audit log line', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { timestamp: now() + 10 * 60 },
    });
    expect(response.status).toBe(401);
    await expectUnchanged(request);
    const line = logLines.find((l) => l.msg === 'slack callback rejected');
    expect(String(line?.problem)).toMatch(/in the future/);
  });

  it('rejects a timestamp that is not a number', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { timestamp: 'yesterday' as unknown as number },
    });
    expect(response.status).toBe(401);
    await expectUnchanged(request);
  });

  it('rejects a body changed after signing (another user, another decision)', async () => {
    const request = await start();
    // Bob's signed "deny" becomes the boss's "approve" on the way.
    const tamper = (body: string) =>
      body.replaceAll('UBOB', 'UBOSS').replace(SLACK_ACTIONS.deny, SLACK_ACTIONS.approve);
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.deny, 'UBOB', { callback: { tamper } });
    expect(response.status).toBe(401);
    await expectUnchanged(request);
  });

  it('accepts a tap signed four minutes ago (inside the window)', async () => {
    const request = await start();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', {
      callback: { timestamp: now() - 4 * 60 },
    });
    expect(response.status).toBe(200);
    await eventually(async () => expect((await env.get(request.id)).status).toBe('approved'));
  });

  it('answers 400 to a signed body that is not a Slack payload, and changes nothing', async () => {
    const request = await start();
    const body = 'payload=%7Bnot-json';
    const ts = now();
    const response = await fetch(`${env.server.url}/channels/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(ts),
        'x-slack-signature': slackSignature(env.slack.signingSecret, ts, body),
      },
      body,
    });
    expect(response.status).toBe(400);
    await expectUnchanged(request);
  });
});
