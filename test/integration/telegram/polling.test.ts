/**
 * Long polling, for gateways with no public URL: the channel removes any webhook (the two exclude each other), pulls
 * `getUpdates` with a long timeout, and a tap it receives decides exactly as a webhook tap does; each update is
 * confirmed through the next call's offset, so it is handled once; stopping the gateway stops polling.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';

const ALICE = '5000000001';

describe('telegram long polling', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env?.close();
  });

  it('deletes the webhook, polls for callback queries only, and decides on a polled tap', async () => {
    env = await startTelegramGateway({ mode: 'polling' });
    await eventually(() => expect(env.telegram.fake.callsTo('getUpdates').length).toBeGreaterThan(0));
    expect(env.telegram.fake.callsTo('deleteWebhook')).toHaveLength(1);
    expect(env.telegram.fake.callsTo('getUpdates')[0]!.body).toMatchObject({
      allowed_updates: ['callback_query'],
      timeout: 2,
    });
    const request = await env.file({ approvers: [`telegram:${ALICE}`] });
    const started = performance.now();
    const result = await env.telegram.press(env.server, request, 'Approve', ALICE);
    const decided = await eventually(async () => {
      const r = await env.get(request.id);
      expect(r.status).toBe('approved');
      return r;
    });
    // How long a tap takes to reach a verdict through a waiting long poll (informational).
    console.info(`telegram polling: tap → verdict in ${(performance.now() - started).toFixed(1)} ms`);
    expect(decided).toMatchObject({ respondedBy: `telegram:${ALICE}`, respondedVia: 'telegram' });
    expect(result.answer?.text).toContain(`Approved by telegram:${ALICE}`);
    await eventually(() => expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(false));
  });

  it('handles each polled update once, confirming it with the next offset', async () => {
    env = await startTelegramGateway({ mode: 'polling' });
    const request = await env.file({ required_approvals: 2 });
    const first = await env.telegram.press(env.server, request, 'Approve', ALICE);
    await eventually(() => {
      const offsets = env.telegram.fake.callsTo('getUpdates').map((c) => c.body.offset);
      expect(offsets).toContain((first.update.update_id as number) + 1);
    });
    expect(env.telegram.fake.pendingUpdates).toBe(0);
    expect(env.telegram.fake.answersTo(first.update)).toHaveLength(1);
    expect((await env.eventTypes(request.id)).filter((t) => t === 'approved')).toHaveLength(1);
  });

  it('refuses a polled tap from a non-approver, with an alert', async () => {
    env = await startTelegramGateway({ mode: 'polling' });
    const request = await env.file({ approvers: [`telegram:${ALICE}`] });
    const result = await env.telegram.press(env.server, request, 'Approve', '5000000666');
    expect(result.answer).toMatchObject({ text: expect.stringContaining('not an approver'), show_alert: true });
    await eventually(async () => expect(await env.eventTypes(request.id)).toContain('decision_rejected'));
    expect((await env.get(request.id)).status).toBe('pending');
  });

  it('stops polling when the gateway stops, confirming the last update', async () => {
    env = await startTelegramGateway({ mode: 'polling' });
    const request = await env.file();
    const tap = await env.telegram.press(env.server, request, 'Approve', ALICE);
    await env.server.close();
    await env.telegram.channel.stop();
    expect(env.telegram.channel.bot.isRunning()).toBe(false);
    // The last call confirms the handled update without waiting for more; no long poll follows it.
    expect(env.telegram.fake.callsTo('getUpdates').at(-1)!.body).toEqual({
      offset: (tap.update.update_id as number) + 1,
      limit: 1,
    });
    const { telegram } = env;
    env = { close: () => telegram.close() } as unknown as TelegramGateway;
  });
});
