/**
 * What a tap does: an approver's tap decides and is answered with UPDATE_MESSAGE (type 7) showing the verdict with no
 * buttons; a refused tap (not an approver, stale nonce, already decided) is answered with an ephemeral message
 * (type 4, flags 64) saying why, and changes nothing; taps from a DM (`user` instead of `member.user`) count too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rendered } from '../../fakes/discord/message-rules.js';
import { eventually } from '../../helpers/eventually.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

const ALICE = '900000000000000001';
const MALLORY = '900000000000000666';

describe('discord taps', () => {
  let env: DiscordGateway;

  afterEach(async () => {
    await env.close();
  });

  it('approves on a tap and answers UPDATE_MESSAGE with the verdict and no buttons', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ approvers: [`discord:${ALICE}`] });
    const result = await env.discord.press(env.server, request, 'Approve', ALICE);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ type: 7, data: { components: [], allowed_mentions: { parse: [] } } });
    expect(rendered(String((result.body!.data as { content: string }).content))).toContain(
      `Approved by discord:${ALICE}`,
    );
    const decided = await env.get(request.id);
    expect(decided).toMatchObject({ status: 'approved', respondedBy: `discord:${ALICE}`, respondedVia: 'discord' });
    // The tapped message shows the verdict at once (Discord applies the answer), and the update job agrees.
    expect(env.discord.fake.card(env.refOf(request))).toMatchObject({
      actionable: false,
      text: expect.stringContaining(`Approved by discord:${ALICE}`),
    });
    await eventually(() => expect(env.discord.fake.callsTo('PATCH', /messages/)).toHaveLength(1));
    expect(env.discord.fake.card(env.refOf(request))?.actionable).toBe(false);
  });

  it('denies on the Deny button', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    const result = await env.discord.press(env.server, request, 'Deny', ALICE);
    expect(result.body).toMatchObject({ type: 7 });
    expect((await env.get(request.id)).status).toBe('denied');
  });

  it('refuses a non-approver with an ephemeral message, and nothing changes', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ approvers: [`discord:${ALICE}`] });
    const result = await env.discord.press(env.server, request, 'Approve', MALLORY);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      type: 4,
      data: { content: expect.stringContaining('not an approver'), flags: 64, allowed_mentions: { parse: [] } },
    });
    expect((await env.get(request.id)).status).toBe('pending');
    const rejected = (await env.server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected?.actor).toBe(`discord:${MALLORY}`);
    expect(env.discord.fake.card(env.refOf(request))?.actionable).toBe(true);
    expect(env.discord.fake.callsTo('PATCH', /messages/)).toHaveLength(0);
  });

  it('refuses a button whose nonce does not match, and a tap on a decided request', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    const stale = await env.discord.press(env.server, request, 'Approve', ALICE, { nonce: 'not-the-nonce' });
    expect(stale.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: expect.stringContaining('does not belong') },
    });
    await env.server.gateway.cancel(request.id, 'api:runtime');
    const late = await env.discord.press(env.server, request, 'Approve', ALICE);
    expect(late.body).toMatchObject({ type: 4, data: { flags: 64, content: expect.stringMatching(/already/) } });
    expect((await env.get(request.id)).status).toBe('cancelled');
  });

  it("refuses a button that is not tollgate's", async () => {
    env = await startDiscordGateway();
    const payload = {
      id: '5',
      application_id: '1100000000000000001',
      type: 3,
      token: 't',
      version: 1,
      channel_id: '1',
      member: { user: { id: ALICE } },
      data: { custom_id: 'someone-elses-button', component_type: 2 },
    };
    const result = await env.discord.post(env.server, payload);
    expect(result.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: expect.stringContaining('does not belong') },
    });
  });

  it('takes a tap from a DM, where the user is in `user` rather than `member.user`', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ approvers: [`discord:${ALICE}`] });
    const result = await env.discord.press(env.server, request, 'Approve', ALICE, { dm: true });
    expect(result.body).toMatchObject({ type: 7 });
    expect((await env.get(request.id)).respondedBy).toBe(`discord:${ALICE}`);
  });

  it('tells the first of two approvers that the request waits for more', async () => {
    env = await startDiscordGateway();
    const request = await env.file({ required_approvals: 2 });
    const first = await env.discord.press(env.server, request, 'Approve', ALICE);
    expect(first.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: expect.stringContaining('waits for more approvers') },
    });
    expect((await env.get(request.id)).status).toBe('pending');
    const second = await env.discord.press(env.server, request, 'Approve', '900000000000000002');
    expect(second.body).toMatchObject({ type: 7, data: { components: [] } });
    expect((await env.get(request.id)).status).toBe('approved');
  });
});
