/**
 * One request on two Slack channels (and the web inbox): the first valid decision wins wherever it is made, the
 * later tap is refused and told so, and every Slack card ends up showing the same outcome without buttons.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SLACK_ACTIONS } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

const TWO_CHANNELS = [{ type: 'slack', target: 'C0ONE' }, { type: 'slack', target: 'C0TWO' }, { type: 'web' }];

describe('slack fan-out', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  async function expectBothCards(request: { id: string }, pattern: RegExp) {
    await eventually(() => {
      for (const target of ['C0ONE', 'C0TWO']) {
        const message = env.slack.messageFor(request as never, target);
        const card = env.slack.fake.card(`${message.channel}:${message.ts}`)!;
        expect(card.actionable).toBe(false);
        expect(card.text).toMatch(pattern);
      }
    });
  }

  it('posts one card per channel; the first tap wins, the second is refused, both cards show the verdict', async () => {
    env = await startSlackGateway();
    const request = await env.file({ channels: TWO_CHANNELS });
    expect(
      env.slack.fake
        .callsTo('chat.postMessage')
        .map((c) => c.params.channel)
        .sort(),
    ).toEqual(['C0ONE', 'C0TWO']);

    await env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', { target: 'C0ONE' });
    await eventually(async () => expect((await env.get(request.id)).status).toBe('approved'));
    await env.slack.press(env.server, request, SLACK_ACTIONS.deny, 'UBOB', { target: 'C0TWO' });
    await eventually(() => expect(env.slack.fake.callsTo('chat.postEphemeral')).toHaveLength(1));
    expect(env.slack.fake.callsTo('chat.postEphemeral')[0]!.params).toMatchObject({
      channel: 'C0TWO',
      user: 'UBOB',
      text: expect.stringContaining('already approved'),
    });

    const final = await env.get(request.id);
    expect(final).toMatchObject({ status: 'approved', respondedBy: 'slack:UALICE' });
    await expectBothCards(request, /Approved by slack:UALICE/);
  });

  it('taps on both cards at once give one verdict, and both cards agree on it', async () => {
    env = await startSlackGateway();
    const request = await env.file({ channels: TWO_CHANNELS });
    await Promise.all([
      env.slack.press(env.server, request, SLACK_ACTIONS.approve, 'UALICE', { target: 'C0ONE' }),
      env.slack.press(env.server, request, SLACK_ACTIONS.deny, 'UBOB', { target: 'C0TWO' }),
    ]);
    await eventually(async () =>
      expect((await env.eventTypes(request.id)).filter((t) => t === 'decision_rejected')).toHaveLength(1),
    );
    const final = await env.get(request.id);
    expect((await env.eventTypes(request.id)).filter((t) => t === 'approved' || t === 'denied')).toEqual([
      final.status,
    ]);
    await expectBothCards(
      request,
      new RegExp(`${final.status === 'approved' ? 'Approved' : 'Denied'} by ${final.respondedBy}`),
    );
  });

  it('updates both Slack cards when the web inbox decides first', async () => {
    env = await startSlackGateway();
    const request = await env.file({ channels: TWO_CHANNELS });
    const response = await env.server.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice' },
    });
    expect(response.status).toBeLessThan(300);
    await expectBothCards(request, /Approved by web:alice/);
  });
});
