/**
 * Delivery: grammY never retries on its own, so the scheduler does, as the adapter's errors say: a chat Telegram does
 * not know, a user who blocked the bot or a refused token gives up at once; a 429 waits out `retry_after`; a 5xx (JSON
 * or a proxy's HTML page) retries with backoff. An edit Telegram calls "not modified" is already done. A person's card
 * goes to their private chat, whose id is their user id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ALICE = '5000000001';

describe('telegram delivery', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env.close();
  });

  async function failures(id: string) {
    return (await env.server.store.events(id)).filter((e) => e.type === 'delivery_failed').map((e) => e.detail);
  }

  async function status(id: string) {
    return (await env.server.store.messages(id))[0]?.status;
  }

  const quickRetries = () => ({
    server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
    waitForCards: false,
  });

  it("sends to a user's private chat (a person's direct target), and their tap there decides", async () => {
    env = await startTelegramGateway();
    expect(env.telegram.channel.directTarget(ALICE)).toBe(ALICE);
    expect(env.telegram.channel.directTarget('alice')).toBeNull();
    const request = await env.file({
      channels: [{ type: 'telegram', target: ALICE }],
      approvers: [`telegram:${ALICE}`],
    });
    expect((await env.server.store.messages(request.id))[0]?.messageRef).toMatch(new RegExp(`^${ALICE}:\\d+$`));
    await env.telegram.press(env.server, request, 'Approve', ALICE, { chatId: ALICE });
    await eventually(() => expect(env.telegram.fake.card(env.refOf(request, ALICE))?.actionable).toBe(false));
  });

  for (const [what, failure, code] of [
    ['an unknown chat', { status: 400, description: 'Bad Request: chat not found' }, '400'],
    ['a user who blocked the bot', { status: 403, description: 'Forbidden: bot was blocked by the user' }, '403'],
    ['a refused token', { status: 401, description: 'Unauthorized' }, '401'],
  ] as const) {
    it(`gives up at once on ${what}`, async () => {
      env = await startTelegramGateway(quickRetries());
      env.telegram.fake.failNext('sendMessage', failure);
      const request = await env.file();
      await eventually(async () => expect(await status(request.id)).toBe('failed'));
      const [detail] = await failures(request.id);
      expect(detail).toMatchObject({
        attempt: 1,
        will_retry: false,
        error: expect.stringContaining(`${code} ${failure.description}`),
      });
      expect(JSON.stringify(detail)).not.toContain(env.telegram.fake.token.split(':')[1]);
      expect(env.telegram.fake.callsTo('sendMessage')).toHaveLength(1);
    });
  }

  it('gives up at once on a target that is no chat id, without calling Telegram', async () => {
    env = await startTelegramGateway(quickRetries());
    const request = await env.file({ channels: [{ type: 'telegram', target: '@approvals' }] });
    await eventually(async () => expect(await status(request.id)).toBe('failed'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ will_retry: false, error: expect.stringContaining('not a chat id') }),
    ]);
    expect(env.telegram.fake.callsTo('sendMessage')).toHaveLength(0);
  });

  it("retries a 5xx with backoff, JSON or a proxy's HTML page, then delivers", async () => {
    env = await startTelegramGateway(quickRetries());
    env.telegram.fake.failNext('sendMessage', { status: 500, description: 'Internal Server Error' });
    env.telegram.fake.failNext('sendMessage', { status: 502, html: true });
    const request = await env.file();
    await eventually(async () => expect(await status(request.id)).toBe('sent'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({
        attempt: 1,
        will_retry: true,
        error: expect.stringContaining('500 Internal Server Error'),
      }),
      expect.objectContaining({
        attempt: 2,
        will_retry: true,
        error: expect.stringContaining("Network request for 'sendMessage' failed"),
      }),
    ]);
    expect(env.telegram.fake.callsTo('sendMessage')).toHaveLength(3);
  });

  it('waits out retry_after on HTTP 429 before trying again (on a manual clock)', async () => {
    const clock = new ManualClock(Date.now());
    env = await startTelegramGateway({
      server: { clock, scheduler: new InProcessScheduler({ clock, backoffMs: 10, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.telegram.fake.failNext('sendMessage', { status: 429, retryAfterS: 30 });
    const request = await env.file();
    await clock.advance(0);
    await eventually(async () =>
      expect(await failures(request.id)).toEqual([
        expect.objectContaining({ will_retry: true, error: expect.stringMatching(/rate limited, retry after 30 s/) }),
      ]),
    );
    await eventually(() => expect(clock.pendingTimers).toBe(2));
    await clock.advance(29_000);
    expect(env.telegram.fake.callsTo('sendMessage')).toHaveLength(1);
    await clock.advance(1_500);
    await eventually(async () => expect(await status(request.id)).toBe('sent'));
    expect(env.telegram.fake.callsTo('sendMessage')).toHaveLength(2);
  });

  it('treats "message is not modified" as an edit already done, and retries an edit that failed', async () => {
    env = await startTelegramGateway({
      server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
    });
    const request = await env.file();
    const card = { target: env.telegram.target, messageRef: env.refOf(request) };
    const pending = await env.get(request.id);
    // The card already shows the pending request: Telegram answers 400 "not modified", which is success.
    await expect(env.telegram.channel.update(pending, card)).resolves.toBeUndefined();
    expect(env.telegram.fake.callsTo('editMessageText')).toHaveLength(1);
    env.telegram.fake.failNext('editMessageText', { status: 502, description: 'Bad Gateway' });
    await env.server.gateway.cancel(request.id, 'api:runtime');
    await eventually(() =>
      expect(env.telegram.fake.card(env.refOf(request))).toMatchObject({
        actionable: false,
        text: expect.stringContaining('Cancelled'),
      }),
    );
    expect(env.telegram.fake.callsTo('editMessageText')).toHaveLength(3);
    await expect(
      env.telegram.channel.update(pending, { ...card, messageRef: `${env.telegram.target}:999999` }),
    ).rejects.toMatchObject({ name: 'PermanentChannelError', code: '400' });
  });
});
