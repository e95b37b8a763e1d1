/**
 * Delivery: a `user:<id>` target (a person's DM, what `directTarget` gives) opens the DM channel first; the REST
 * client never retries on its own, so the scheduler does, as the adapter's errors say: an unknown channel or a bad
 * token gives up at once, a 429 waits out Retry-After, a 5xx retries with backoff.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';

const ALICE = '900000000000000001';

describe('discord delivery', () => {
  let env: DiscordGateway;

  afterEach(async () => {
    await env.close();
  });

  async function failures(id: string) {
    return (await env.server.store.events(id)).filter((e) => e.type === 'delivery_failed').map((e) => e.detail);
  }

  const quickRetries = () => ({
    server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
    waitForCards: false,
  });

  it('sends to a person through the DM channel it opens, and taps there decide', async () => {
    env = await startDiscordGateway();
    expect(env.discord.channel.directTarget(ALICE)).toBe(`user:${ALICE}`);
    expect(env.discord.channel.directTarget('alice')).toBeNull();
    const request = await env.file({
      channels: [{ type: 'discord', target: `user:${ALICE}` }],
      approvers: [`discord:${ALICE}`],
    });
    const opened = env.discord.fake.callsTo('POST', /^\/users\/@me\/channels$/);
    expect(opened.map((c) => c.body)).toEqual([{ recipient_id: ALICE }]);
    const dm = env.discord.fake.dmChannel(ALICE)!;
    expect((await env.server.store.messages(request.id))[0]?.messageRef).toMatch(new RegExp(`^${dm}:\\d+$`));
    const result = await env.discord.press(env.server, request, 'Approve', ALICE, { channelId: dm, dm: true });
    expect(result.body).toMatchObject({ type: 7 });
    await eventually(() =>
      expect(env.discord.fake.callsTo('PATCH', new RegExp(`^/channels/${dm}/messages/`))).toHaveLength(1),
    );
  });

  it('gives up at once on an unknown channel, and on a target that is no channel id', async () => {
    env = await startDiscordGateway(quickRetries());
    env.discord.fake.failNext({ status: 404, code: 10003, message: 'Unknown Channel' });
    const request = await env.file();
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('failed'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ attempt: 1, will_retry: false, error: expect.stringContaining('10003') }),
    ]);
    const named = await env.file({ channels: [{ type: 'discord', target: '#approvals' }] });
    await eventually(async () => expect((await env.server.store.messages(named.id))[0]?.status).toBe('failed'));
    expect(await failures(named.id)).toEqual([
      expect.objectContaining({ will_retry: false, error: expect.stringContaining('not a channel id') }),
    ]);
  });

  it('gives up at once when the bot token is refused, and never sends the token anywhere else', async () => {
    env = await startDiscordGateway(quickRetries());
    env.discord.fake.failNext({ status: 401, code: 0, message: '401: Unauthorized' });
    const request = await env.file();
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('failed'));
    const [failure] = await failures(request.id);
    expect(failure).toMatchObject({ will_retry: false });
    expect(JSON.stringify(failure)).not.toContain(env.discord.fake.token);
  });

  it('retries a 5xx with backoff, then delivers', async () => {
    env = await startDiscordGateway(quickRetries());
    env.discord.fake.failNext({ status: 502 });
    const request = await env.file();
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('sent'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ attempt: 1, will_retry: true, error: expect.stringContaining('HTTP 502') }),
    ]);
  });

  it('waits out Retry-After on HTTP 429 before trying again', async () => {
    const clock = new ManualClock(Date.now());
    env = await startDiscordGateway({
      server: { clock, scheduler: new InProcessScheduler({ clock, backoffMs: 10, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.discord.fake.failNext({ status: 429, retryAfterS: 30 });
    const request = await env.file();
    await clock.advance(0);
    await eventually(async () =>
      expect(await failures(request.id)).toEqual([
        expect.objectContaining({ will_retry: true, error: expect.stringMatching(/rate limited/) }),
      ]),
    );
    await eventually(() => expect(clock.pendingTimers).toBe(2));
    await clock.advance(29_000);
    expect(env.discord.fake.callsTo('POST', /messages$/)).toHaveLength(1);
    await clock.advance(1_500);
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('sent'));
    expect(env.discord.fake.callsTo('POST', /messages$/)).toHaveLength(2);
  });
});
