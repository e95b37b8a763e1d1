/**
 * Delivery failures: the Web API client never retries on its own; the scheduler does, as the adapter's errors say.
 * `channel_not_found` and revoked tokens give up at once, rate limits wait out Retry-After, 5xx and dropped
 * connections retry with backoff. Every failure is a `delivery_failed` (or `update_failed`) event and shows in
 * `/metrics`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from './setup.js';

describe('slack delivery failures', () => {
  let env: SlackGateway;

  afterEach(async () => {
    await env.close();
  });

  async function failures(id: string) {
    return (await env.server.store.events(id)).filter((e) => e.type === 'delivery_failed').map((e) => e.detail);
  }

  it('gives up at once on channel_not_found, records it, and shows it in /metrics', async () => {
    env = await startSlackGateway({
      server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.slack.fake.breakChannel('C0GONE');
    const request = await env.file({ channels: [{ type: 'slack', target: 'C0GONE' }, { type: 'web' }] });
    await eventually(async () =>
      expect((await env.server.store.messages(request.id)).find((m) => m.channel === 'slack')?.status).toBe('failed'),
    );
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({
        target: 'C0GONE',
        attempt: 1,
        will_retry: false,
        error: expect.stringContaining('channel_not_found'),
      }),
    ]);
    expect(env.slack.fake.callsTo('chat.postMessage')).toHaveLength(1);
    const metrics = await (await fetch(`${env.server.url}/metrics`)).text();
    expect(metrics).toMatch(/tollgate_channel_jobs_total\{job="deliver",channel="slack",outcome="failed"\} 1/);
  });

  it('gives up at once when the token is revoked', async () => {
    env = await startSlackGateway({
      server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.slack.fake.failNext('chat.postMessage', { error: 'token_revoked' }, 5);
    const request = await env.file();
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('failed'));
    expect(await failures(request.id)).toEqual([
      expect.objectContaining({ will_retry: false, error: expect.stringContaining('token_revoked') }),
    ]);
  });

  it('retries 5xx answers and dropped connections with backoff, then delivers', async () => {
    env = await startSlackGateway({
      server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.slack.fake.failNext('chat.postMessage', { status: 500 });
    env.slack.fake.failNext('chat.postMessage', { hangUp: true });
    const request = await env.file();
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('sent'));
    const failed = await failures(request.id);
    expect(failed).toEqual([
      expect.objectContaining({ attempt: 1, will_retry: true, error: expect.stringContaining('HTTP 500') }),
      expect.objectContaining({ attempt: 2, will_retry: true, error: expect.stringContaining('request failed') }),
    ]);
    expect((await env.server.store.events(request.id)).find((e) => e.type === 'delivered')?.detail).toMatchObject({
      attempt: 3,
    });
  });

  it('waits out Retry-After on HTTP 429 before trying again', async () => {
    const clock = new ManualClock(Date.now());
    env = await startSlackGateway({
      server: { clock, scheduler: new InProcessScheduler({ clock, backoffMs: 10, sweepEveryMs: 0 }) },
      waitForCards: false,
    });
    env.slack.fake.failNext('chat.postMessage', { status: 429, retryAfterS: 30 });
    const request = await env.file();
    await clock.advance(0);
    await eventually(async () =>
      expect(await failures(request.id)).toEqual([
        expect.objectContaining({ will_retry: true, error: expect.stringMatching(/rate limited, retry after 30 s/) }),
      ]),
    );
    // The expiry timer and the retry timer: the retry is armed before time moves on.
    await eventually(() => expect(clock.pendingTimers).toBe(2));
    await clock.advance(29_999);
    expect(env.slack.fake.callsTo('chat.postMessage')).toHaveLength(1);
    await clock.advance(1);
    await eventually(async () => expect((await env.server.store.messages(request.id))[0]?.status).toBe('sent'));
    expect(env.slack.fake.callsTo('chat.postMessage')).toHaveLength(2);
  });

  it('retries a failed card update until the card shows the outcome', async () => {
    env = await startSlackGateway({ server: { scheduler: new InProcessScheduler({ backoffMs: 5, sweepEveryMs: 0 }) } });
    const request = await env.file();
    env.slack.fake.failNext('chat.update', { status: 503 });
    await env.server.gateway.cancel(request.id, 'api:runtime');
    const message = env.slack.messageFor(request);
    await eventually(() => expect(env.slack.fake.card(`${message.channel}:${message.ts}`)?.actionable).toBe(false));
    const types = (await env.server.store.events(request.id)).map((e) => e.type);
    expect(types).toContain('update_failed');
    expect(env.slack.fake.callsTo('chat.update')).toHaveLength(2);
  });
});
