/**
 * "Deny with reason": the button opens a modal (views.open with the tap's trigger_id) whose private_metadata holds
 * the request id and nonce; submitting it denies the request with the typed reason, which the runtime reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { postSlackCallback, viewSubmissionPayload } from '../../fakes/slack/callbacks.js';
import { SLACK_ACTIONS } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

describe('slack deny with reason', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  it('opens a modal, and its submission denies with the reason the runtime then reads', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const submitted = await env.slack.denyWithReason(env.server, request, 'UALICE', '  wrong version, use 1.4.3  ');
    expect(submitted.status).toBe(200);

    const [opened] = env.slack.fake.callsTo('views.open');
    expect(String(opened!.params.trigger_id)).toMatch(/fake/);
    const view = opened!.params.view as { private_metadata: string; callback_id: string };
    expect(JSON.parse(view.private_metadata)).toEqual({
      request_id: request.id,
      nonce: request.nonce,
      channel_id: env.slack.target,
    });

    await eventually(async () => expect((await env.get(request.id)).status).toBe('denied'));
    const response = await env.server.api(`/v1/requests/${request.id}`);
    expect(await response.json()).toMatchObject({
      status: 'denied',
      reason: 'wrong version, use 1.4.3',
      responded_by: 'slack:UALICE',
      responded_via: 'slack',
      allowed: false,
    });
    const message = env.slack.messageFor(request);
    await eventually(() => {
      const card = env.slack.fake.card(`${message.channel}:${message.ts}`)!;
      expect(card.actionable).toBe(false);
      expect(card.text).toContain('wrong version, use 1.4.3');
    });
  });

  it('does not open the modal on a decided request; the approver is told why and the tap is recorded', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    await env.server.gateway.decide({
      requestId: request.id,
      decision: 'approve',
      actor: { channel: 'api', userId: 'ops' },
    });
    await env.slack.press(env.server, request, SLACK_ACTIONS.denyWithReason, 'UALICE');
    await eventually(() => expect(env.slack.fake.callsTo('chat.postEphemeral')).toHaveLength(1));
    expect(String(env.slack.fake.callsTo('chat.postEphemeral')[0]!.params.text)).toContain('already approved');
    expect(env.slack.fake.callsTo('views.open')).toHaveLength(0);
    expect(await env.eventTypes(request.id)).toContain('decision_rejected');
    expect((await env.get(request.id)).status).toBe('approved');
  });

  it('refuses a submission whose private_metadata carries the wrong nonce', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    const view = {
      id: 'V0X',
      type: 'modal',
      callback_id: 'tollgate_reason_modal',
      private_metadata: JSON.stringify({ request_id: request.id, nonce: 'guessed', channel_id: 'C0APPROVALS' }),
    };
    const payload = viewSubmissionPayload({ userId: 'UALICE', view, values: { reason: { reason: 'because' } } });
    expect(
      (await postSlackCallback(`${env.server.url}/channels/slack/events`, env.slack.signingSecret, payload)).status,
    ).toBe(200);
    await eventually(async () => expect(await env.eventTypes(request.id)).toContain('decision_rejected'));
    expect((await env.get(request.id)).status).toBe('pending');
    await eventually(() =>
      expect(String(env.slack.fake.callsTo('chat.postEphemeral')[0]?.params.text)).toMatch(/does not belong/),
    );
  });

  it('refuses a reason from someone not on the allowlist', async () => {
    env = await startSlackGateway();
    const request = await env.file({ approvers: ['slack:UBOSS'] });
    await env.slack.denyWithReason(env.server, request, 'UINTERN', 'I do not like it');
    await eventually(async () =>
      expect((await env.server.store.events(request.id)).find((e) => e.type === 'decision_rejected')?.actor).toBe(
        'slack:UINTERN',
      ),
    );
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('tells the approver when the modal cannot be opened', async () => {
    env = await startSlackGateway();
    const request = await env.file();
    env.slack.fake.failNext('views.open', { error: 'expired_trigger_id' });
    await env.slack.press(env.server, request, SLACK_ACTIONS.denyWithReason, 'UALICE');
    await eventually(() =>
      expect(String(env.slack.fake.callsTo('chat.postEphemeral')[0]?.params.text)).toMatch(/could not be opened/),
    );
    expect((await env.get(request.id)).status).toBe('pending');
  });
});
