/**
 * Taps on Slack cards: who may decide, double and late taps, quorum, extra options, and what the approver is told.
 * Rejections are recorded by the gateway (`decision_rejected`) and explained with an ephemeral message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { SLACK_ACTIONS } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

describe('slack taps', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  function ephemeralsTo(user: string) {
    return env.slack.fake.callsTo('chat.postEphemeral').filter((c) => c.params.user === user);
  }

  it('approves on a tap: responded by slack:<user>, via slack, card shows the outcome without buttons, no ephemeral', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const response = await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE');
    expect(response.status).toBe(200);
    const decided = await eventually(async () => {
      const r = await env.get(request.id);
      expect(r.status).toBe('approved');
      return r;
    });
    expect(decided).toMatchObject({
      respondedBy: 'slack:UALICE',
      respondedVia: 'slack',
      decisionOption: 'Approve',
      allowed: true,
    });
    const message = env.slack.messageFor(request);
    await eventually(() => {
      const card = env.slack.fake.card(`${message.channel}:${message.ts}`)!;
      expect(card.actionable).toBe(false);
      expect(card.text).toContain('Approved by slack:UALICE');
    });
    expect(env.slack.fake.callsTo('chat.postEphemeral')).toHaveLength(0);
  });

  it('refuses someone not on the allowlist: ephemeral "not an approver", decision_rejected, still pending', async () => {
    env = await startSlackGateway();
    const request = await env.file({ approvers: ['slack:UBOSS'] });
    expect((await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UINTERN')).status).toBe(200);
    await eventually(() => expect(ephemeralsTo('UINTERN')).toHaveLength(1));
    expect(ephemeralsTo('UINTERN')[0]!.params).toMatchObject({
      channel: env.slack.target,
      text: expect.stringMatching(/not an approver/),
    });
    const rejected = (await env.server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected).toMatchObject({
      actor: 'slack:UINTERN',
      channel: 'slack',
      detail: expect.objectContaining({ code: 'not_authorized' }),
    });
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('gives exactly one verdict for two taps at once; the other approver is told it was already decided', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const [a, b] = await Promise.all([
      env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE'),
      env.slack.press(env.server, request, SLACK_ACTIONS.deny, 'UBOB'),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await eventually(async () =>
      expect((await env.eventTypes(request.id)).filter((t) => t === 'decision_rejected')).toHaveLength(1),
    );
    const types = await env.eventTypes(request.id);
    expect(types.filter((t) => t === 'approved' || t === 'denied')).toHaveLength(1);
    const final = await env.get(request.id);
    const loser = final.respondedBy === 'slack:UALICE' ? 'UBOB' : 'UALICE';
    await eventually(() => expect(ephemeralsTo(loser)).toHaveLength(1));
    expect(String(ephemeralsTo(loser)[0]!.params.text)).toMatch(/already (approved|denied)/);
  });

  it('refuses a late tap after expiry and says so', async () => {
    // Expiry on a ManualClock (no real seconds waited); deliveries run on the same clock, so step it to send the card.
    const clock = new ManualClock(Date.now());
    env = await startSlackGateway({
      waitForCards: false,
      server: { clock, scheduler: new InProcessScheduler({ clock }) },
    });
    const request = await env.file({ timeout_s: 60 });
    await clock.advance(0);
    await eventually(async () =>
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'slack')?.status).toBe('sent'),
    );
    await clock.advance(60_000);
    await eventually(async () => expect((await env.get(request.id)).status).toBe('expired'));
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE');
    await eventually(() => expect(ephemeralsTo('UALICE')).toHaveLength(1));
    expect(String(ephemeralsTo('UALICE')[0]!.params.text)).toContain('already expired');
    expect(await env.eventTypes(request.id)).toContain('decision_rejected');
    expect((await env.get(request.id)).status).toBe('expired');
  });

  it('refuses a button whose nonce does not match', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', { nonce: 'guessed' });
    await eventually(() => expect(ephemeralsTo('UALICE')).toHaveLength(1));
    expect(String(ephemeralsTo('UALICE')[0]!.params.text)).toMatch(/does not belong to this request/);
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('falls back to the response_url when the ephemeral message cannot be posted', async () => {
    env = await startSlackGateway();
    const request = await env.file({ approvers: ['slack:UBOSS'] });
    env.slack.fake.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UINTERN');
    const sent = await eventually(() => {
      const [call] = env.slack.fake.callsTo('response_url');
      if (!call) throw new Error('no response_url post');
      return call;
    });
    expect(sent.params).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: expect.stringMatching(/not an approver/),
    });
  });

  it('counts approvals towards a quorum and keeps the buttons until it is met', async () => {
    env = await startSlackGateway();
    const request = await env.file({ required_approvals: 2 });
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE');
    await eventually(() => expect(String(ephemeralsTo('UALICE')[0]?.params.text)).toMatch(/waits for more approvers/));
    expect((await env.get(request.id)).status).toBe('pending');
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UBOB');
    await eventually(async () => expect((await env.get(request.id)).status).toBe('approved'));
    const message = env.slack.messageFor(request);
    await eventually(() => expect(env.slack.fake.card(`${message.channel}:${message.ts}`)?.actionable).toBe(false));
  });

  it('shows one button per option and records which one was chosen', async () => {
    env = await startSlackGateway();
    const request = await env.file({ options: ['Ship it', 'Hold', 'Ship to canary only'] });
    const card = env.slack.fake.card(`${env.slack.messageFor(request).channel}:${env.slack.messageFor(request).ts}`)!;
    expect(card.text).toContain('Ship to canary only');
    await env.slack.press(env.server, request, 'tollgate_option_2', 'UALICE');
    const decided = await eventually(async () => {
      const r = await env.get(request.id);
      expect(r.status).toBe('approved');
      return r;
    });
    expect(decided.decisionOption).toBe('Ship to canary only');
  });

  it('sends to a user id as a DM and updates the DM card', async () => {
    env = await startSlackGateway();
    const request = await env.file({ channels: [{ type: 'slack', target: 'U0DMUSER' }] });
    const [card] = await env.server.store.messages(request.id);
    expect(card?.messageRef).toMatch(/^D0DMUSER:\d+\.\d+$/);
    await env.server.gateway.cancel(request.id, 'api:runtime');
    await eventually(() => expect(env.slack.fake.card(card!.messageRef!)?.text).toMatch(/Cancelled by api:runtime/));
  });

  it('uses the default target for {"type":"slack"}', async () => {
    env = await startSlackGateway({ slack: { defaultTarget: 'C0DEFAULT' } });
    const request = await env.file({ channels: [{ type: 'slack' }] });
    expect(env.slack.messageFor(request).channel).toBe('C0DEFAULT');
  });

  it('without configured bot ids, asks auth.test once at the first tap instead of at start-up', async () => {
    env = await startSlackGateway({ slack: { botId: undefined, botUserId: undefined } });
    const request = await env.file();
    expect(env.slack.fake.callsTo('auth.test')).toHaveLength(0);
    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE');
    await eventually(async () => expect((await env.get(request.id)).status).toBe('approved'));
    expect(env.slack.fake.callsTo('auth.test')).toHaveLength(1);
  });
});
