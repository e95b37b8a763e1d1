/**
 * Every webhook call is authenticated with `X-Telegram-Bot-Api-Secret-Token`: a missing or wrong secret gets 401 and
 * changes nothing (no decision, no event, no toast, no edit); the same update posted twice decides once; a gateway in
 * polling mode has no webhook at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ALICE = '5000000001';

describe('telegram webhook authentication', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env.close();
  });

  async function expectUnchanged(request: ConfirmationRequest) {
    expect((await env.get(request.id)).status).toBe('pending');
    expect(await env.eventTypes(request.id)).toEqual(['created', 'delivered']);
    expect(env.telegram.fake.callsTo('answerCallbackQuery')).toHaveLength(0);
    expect(env.telegram.fake.callsTo('editMessageText')).toHaveLength(0);
    expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(true);
  }

  for (const [what, secret] of [
    ['without the secret header', null],
    ['with a wrong secret', 'not-the-secret'],
    ['with an empty secret', ''],
    ['with the secret and something more', 'SECRET+x'],
  ] as const) {
    it(`refuses an update ${what} with 401, and nothing changes`, async () => {
      env = await startTelegramGateway();
      const request = await env.file({ approvers: [`telegram:${ALICE}`] });
      const result = await env.telegram.press(env.server, request, 'Approve', ALICE, {
        secret: secret === 'SECRET+x' ? `${env.telegram.secret}x` : secret,
      });
      expect(result.status).toBe(401);
      await expectUnchanged(request);
    });
  }

  it('takes the same tap with the right secret', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ approvers: [`telegram:${ALICE}`] });
    expect((await env.telegram.press(env.server, request, 'Approve', ALICE)).status).toBe(200);
    expect((await env.get(request.id)).status).toBe('approved');
  });

  it('decides once when the same update is posted twice (a redelivery or a replay)', async () => {
    env = await startTelegramGateway();
    const request = await env.file({ required_approvals: 2 });
    const first = await env.telegram.press(env.server, request, 'Approve', ALICE);
    expect(first.answer).toMatchObject({ text: expect.stringContaining('waits for more approvers') });
    const again = await env.telegram.deliver(env.server, first.update);
    // Telegram stops redelivering on any 2xx; the copy is dropped before it reaches the gateway.
    expect(again.status).toBe(200);
    expect(env.telegram.fake.callsTo('answerCallbackQuery')).toHaveLength(1);
    expect(
      (await env.eventTypes(request.id)).filter((t) => t !== 'created' && t !== 'delivered' && t !== 'updated'),
    ).toEqual(['approved']);
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('answers 400 to a body that is no update, after the secret check', async () => {
    env = await startTelegramGateway();
    const url = `${env.server.url}/channels/telegram/webhook`;
    const post = (body: string, secret?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
        },
        body,
      });
    expect((await post('not json')).status).toBe(401);
    expect((await post('not json', env.telegram.secret)).status).toBe(400);
    expect((await post('{"message":{}}', env.telegram.secret)).status).toBe(400);
  });

  it('has no webhook in polling mode', async () => {
    env = await startTelegramGateway({ mode: 'polling' });
    const request = await env.file();
    const result = await env.telegram.fake.postUpdate(
      `${env.server.url}/channels/telegram/webhook`,
      env.telegram.fake.tapUpdate(env.telegram.messageFor(request), 'o0:x:y', { id: 1 }),
      env.telegram.secret,
    );
    expect(result.status).toBe(404);
    await eventually(async () => expect((await env.get(request.id)).status).toBe('pending'));
  });
});
