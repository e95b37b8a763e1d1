/**
 * What a tap does: an approver's tap decides, is answered with a toast saying so, and the gateway edits the card to the
 * verdict with no keyboard; a refused tap (not an approver, stale nonce, already decided, not tollgate's button) is
 * answered with an alert saying why, records `decision_rejected` where the gateway saw it, and changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ALICE = '5000000001';
const BOB = '5000000002';
const MALLORY = '5000000666';

describe('telegram taps', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env.close();
  });

  it('approves on a tap, answers with a toast, and edits the card to the verdict without a keyboard', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ approvers: [`telegram:${ALICE}`] });
    const result = await env.telegram.press(env.server, request, 'Approve', ALICE, { user: { username: 'alice' } });
    expect(result.status).toBe(200);
    expect(result.answer).toMatchObject({
      text: expect.stringContaining(`Approved by telegram:${ALICE}`),
      show_alert: false,
    });
    expect(await env.get(request.id)).toMatchObject({
      status: 'approved',
      respondedBy: `telegram:${ALICE}`,
      respondedVia: 'telegram',
    });
    await eventually(() =>
      expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringContaining(`Approved by telegram:${ALICE}`),
      }),
    );
    const [edit] = env.telegram.fake.callsTo('editMessageText');
    expect(edit!.body).toMatchObject({
      chat_id: env.telegram.target,
      message_id: env.telegram.messageFor(request).messageId,
      parse_mode: 'HTML',
    });
    expect(edit!.body.reply_markup).toBeUndefined();
  });

  it('denies on the Deny button', async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    const result = await env.telegram.press(env.server, request, 'Deny', ALICE);
    expect(result.answer?.text).toMatch(/^Denied by telegram:/);
    expect((await env.get(request.id)).status).toBe('denied');
    await eventually(() =>
      expect(env.telegram.fake.card(env.refOf(request))?.text).toContain(`Denied by telegram:${ALICE}`),
    );
  });

  it("approves under a further option's label", async () => {
    env = await startTelegramGateway();
    const request = await env.file({ options: ['Ship it', 'Stop', 'Ship to canary'] });
    await env.telegram.press(env.server, request, 'Ship to canary', ALICE);
    expect(await env.get(request.id)).toMatchObject({ status: 'approved', decisionOption: 'Ship to canary' });
  });

  it('refuses a non-approver with an alert and a decision_rejected event; the card keeps its keyboard', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ approvers: [`telegram:${ALICE}`] });
    const result = await env.telegram.press(env.server, request, 'Approve', MALLORY);
    expect(result.status).toBe(200);
    expect(result.answer).toMatchObject({ text: expect.stringContaining('not an approver'), show_alert: true });
    expect((await env.get(request.id)).status).toBe('pending');
    const rejected = (await env.server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected?.actor).toBe(`telegram:${MALLORY}`);
    expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(true);
    expect(env.telegram.fake.callsTo('editMessageText')).toHaveLength(0);
  });

  it('refuses a button whose nonce does not match, and a tap on a decided request', async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    const stale = await env.telegram.press(env.server, request, 'Approve', ALICE, { nonce: 'not-the-nonce' });
    expect(stale.answer).toMatchObject({ text: expect.stringContaining('does not belong'), show_alert: true });
    await env.server.gateway.cancel(request.id, 'api:runtime');
    const late = await env.telegram.press(env.server, request, 'Approve', ALICE);
    expect(late.answer?.text).toMatch(/already/);
    expect((await env.get(request.id)).status).toBe('cancelled');
  });

  it("refuses a button that is not tollgate's, and still answers it", async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    const result = await env.telegram.deliver(
      env.server,
      env.telegram.fake.tapUpdate(env.telegram.messageFor(request), 'someone-elses-button', { id: ALICE }),
    );
    expect(result.answer).toMatchObject({ text: expect.stringContaining('does not belong'), show_alert: true });
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('tells the first of two approvers that the request waits for more, and the card keeps its keyboard', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ required_approvals: 2 });
    const first = await env.telegram.press(env.server, request, 'Approve', ALICE);
    expect(first.answer?.text).toContain('waits for more approvers');
    expect((await env.get(request.id)).status).toBe('pending');
    await eventually(() =>
      expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
        actionable: true,
        text: expect.stringContaining('Waiting for 2 approvals'),
      }),
    );
    const second = await env.telegram.press(env.server, request, 'Approve', BOB);
    expect(second.answer?.text).toContain('Approved');
    expect((await env.get(request.id)).status).toBe('approved');
    await eventually(() => expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(false));
  });
});
