/**
 * "Deny with reason…": the button answers with a dialog (interaction response type 9) holding one text input; its
 * submission (a MODAL_SUBMIT interaction, signed like any other) denies with the typed reason, which the agent and
 * every card see. Someone who may not decide, or a card gone stale, gets no dialog but an ephemeral refusal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

const ALICE = '900000000000000001';

describe('discord deny with reason', () => {
  let env: DiscordGateway;

  afterEach(async () => {
    await env.close();
  });

  it('opens a dialog, denies with the typed reason, and shows it on the card', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ approvers: [`discord:${ALICE}`] });
    const result = await env.discord.denyWithReason(env.server, request, ALICE, '  not during the freeze @everyone  ');
    expect(result.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(await env.get(request.id)).toMatchObject({
      status: 'denied',
      respondedBy: `discord:${ALICE}`,
      reason: 'not during the freeze @everyone',
    });
    await eventually(() =>
      expect(env.discord.fake.card(env.refOf(request))?.text).toMatch(
        /Denied by discord:\d+[\s\S]*not during the freeze @everyone/,
      ),
    );
    expect(JSON.stringify(env.discord.fake.card(env.refOf(request))!.body)).not.toContain('@everyone');
  });

  it('gives no dialog to someone who is not an approver, and records the refusal', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ approvers: [`discord:${ALICE}`] });
    const result = await env.discord.denyWithReason(env.server, request, '900000000000000666', 'mine now');
    expect(result.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: expect.stringContaining('not an approver') },
    });
    expect((await env.get(request.id)).status).toBe('pending');
    expect((await env.server.store.events(request.id)).map((e) => e.type)).toContain('decision_rejected');
  });

  it('refuses a dialog submitted after the request was decided elsewhere', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    // The dialog is open (the button answered), then the request is cancelled before it is submitted.
    const opened = await env.discord.press(env.server, request, 'Deny with reason…', ALICE);
    expect(opened.body).toMatchObject({ type: 9 });
    await env.server.gateway.cancel(request.id, 'api:runtime');
    const modal = opened.body!.data as { custom_id: string };
    const submitted = await env.discord.post(env.server, {
      id: '1500000000000000001',
      type: 5,
      token: 't',
      version: 1,
      application_id: '1100000000000000001',
      member: { user: { id: ALICE } },
      data: {
        custom_id: modal.custom_id,
        components: [{ type: 1, components: [{ type: 4, custom_id: 'reason', value: 'too late' }] }],
      },
    });
    expect(submitted.body).toMatchObject({ type: 4, data: { flags: 64, content: expect.stringMatching(/already/) } });
    expect((await env.get(request.id)).status).toBe('cancelled');
  });
});
