/**
 * Cards out: the real Lark SDK against the fake Feishu server. Sending (receive_id_type, uuid, card JSON 2.0),
 * retries that never duplicate a card, business errors (HTTP 200 with code != 0), wrong credentials, a revoked
 * tenant token, and card patches after decisions and expiry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { PermanentChannelError, RateLimitedError } from '../../../src/channel/channel.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { sendUuid } from '../../../channels/feishu/index.js';
import { findAll, visibleText } from '../../fakes/feishu/fake-feishu.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { pendingRequest } from './fixtures.js';

process.env.NO_PROXY = '127.0.0.1';

describe('feishu delivery', () => {
  let harness: FeishuHarness;
  let server: TestServer | null = null;
  const logLines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });

  afterEach(async () => {
    await server?.close();
    server = null;
    await harness.close();
    logLines.length = 0;
  });

  async function serve(h: FeishuHarness, clock?: ManualClock) {
    harness = h;
    // Fast retries: the tests are about what is retried, not how slowly.
    server = await startTestServer({
      channels: [h.channel],
      clock,
      scheduler: new InProcessScheduler({ backoffMs: 5, attempts: 4, clock }),
    });
    return server;
  }

  async function sentRef(s: TestServer, requestId: string): Promise<string> {
    return eventually(async () => {
      const [m] = await s.store.messages(requestId);
      expect(m?.status).toBe('sent');
      return m!.messageRef!;
    });
  }

  async function file(s: TestServer, body: Record<string, unknown> = {}) {
    const { request } = await s.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing', api_key: 'sk-live-123' },
      channels: [{ type: 'feishu', target: 'oc_ops' }],
      ...body,
    });
    return request;
  }

  it('sends a card JSON 2.0 to a chat with a uuid, named buttons carrying only request id and nonce, and masked arguments', async () => {
    const s = await serve(await makeFeishuHarness());
    const request = await file(s, { approvers: ['feishu:ou_boss'] });
    const card = await eventually(async () => {
      const [m] = await s.store.messages(request.id);
      expect(m?.status).toBe('sent');
      return harness.fake.card(m!.messageRef!)!;
    });
    const [call] = harness.fake.callsTo('send');
    expect(call!.query.receive_id_type).toBe('chat_id');
    expect(call!.body).toMatchObject({
      receive_id: 'oc_ops',
      msg_type: 'interactive',
      uuid: sendUuid(request.id, 'oc_ops'),
    });
    expect(call!.authorization).toMatch(/^Bearer t-/);
    expect(card).toMatchObject({ schema: '2.0', config: { update_multi: true }, header: { template: 'orange' } });
    const buttons = findAll(card, 'button');
    expect(buttons.map((b) => b.name)).toEqual(['tollgate_approve', 'tollgate_deny']);
    for (const b of buttons)
      expect((b.behaviors as { value: unknown }[])[0]!.value).toEqual({ request_id: request.id, nonce: request.nonce });
    expect(findAll(card, 'input').map((i) => i.name)).toEqual(['reason']);
    const text = visibleText(card);
    expect(text).toContain('Approval needed: deploy_service');
    expect(text).toContain('feishu:ou_boss');
    expect(text).toContain('••••');
    expect(JSON.stringify(card)).not.toContain('sk-live-123');
    // Runtime-controlled text is never markdown (no @all, no fake links).
    expect(findAll(card, 'markdown')).toEqual([]);
  });

  it('derives receive_id_type from each target', async () => {
    const s = await serve(await makeFeishuHarness());
    const targets = ['ou_alice', 'bob@example.com', 'user_id:u123', 'on_union', 'emp_7'];
    const request = await file(s, { channels: targets.map((target) => ({ type: 'feishu', target })) });
    await eventually(async () =>
      expect((await s.store.messages(request.id)).every((m) => m.status === 'sent')).toBe(true),
    );
    const sent = harness.fake.callsTo('send').map((c) => [c.query.receive_id_type, c.body.receive_id]);
    expect(sent).toEqual(
      expect.arrayContaining([
        ['open_id', 'ou_alice'],
        ['email', 'bob@example.com'],
        ['user_id', 'u123'],
        ['union_id', 'on_union'],
        ['user_id', 'emp_7'],
      ]),
    );
  });

  it('retries a send whose answer was lost without posting a second card', async () => {
    const h = await makeFeishuHarness();
    h.fake.failNext('send', { afterApply: true });
    const s = await serve(h);
    const request = await file(s);
    await eventually(async () => expect((await s.store.messages(request.id))[0]?.status).toBe('sent'));
    expect(harness.fake.callsTo('send')).toHaveLength(2);
    expect(new Set(harness.fake.callsTo('send').map((c) => c.body.uuid)).size).toBe(1);
    expect(harness.fake.messages.size).toBe(1);
    const types = (await s.store.events(request.id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['delivery_failed', 'delivered']));
  });

  it('treats an HTTP 200 business error as a failure and retries the ones that can pass', async () => {
    const h = await makeFeishuHarness();
    h.fake.failNext('send', { code: 1500, msg: 'internal error, try again' });
    const s = await serve(h);
    const request = await file(s);
    await eventually(async () => expect((await s.store.messages(request.id))[0]?.status).toBe('sent'));
    const failed = (await s.store.events(request.id)).find((e) => e.type === 'delivery_failed');
    expect(failed?.detail).toMatchObject({ will_retry: true });
    expect(String(failed?.detail.error)).toContain('code 1500');
  });

  it('gives up at once when the bot is not in the chat (code 230002), recording why', async () => {
    const h = await makeFeishuHarness();
    h.fake.failNext('send', { code: 230002, msg: 'Bot/User can NOT be out of the chat.' }, 5);
    const s = await serve(h);
    const request = await file(s);
    const card = await eventually(async () => {
      const [m] = await s.store.messages(request.id);
      expect(m?.status).toBe('failed');
      return m!;
    });
    expect(card.lastError).toContain('230002');
    expect(card.lastError).toContain('not a member of the chat');
    expect(harness.fake.callsTo('send')).toHaveLength(1);
    const failed = (await s.store.events(request.id)).find((e) => e.type === 'delivery_failed');
    expect(failed?.detail).toMatchObject({ will_retry: false });
  });

  it('reports a wrong app secret clearly in the events and the logs, without retrying', async () => {
    const h = await makeFeishuHarness({}, { logger });
    h.fake.registerApp(h.secrets.appId, 'the-real-secret');
    const s = await serve(h);
    const request = await file(s);
    const card = await eventually(async () => {
      const [m] = await s.store.messages(request.id);
      expect(m?.status).toBe('failed');
      return m!;
    });
    expect(card.lastError).toMatch(
      /refused the app credentials \(code 10014: app secret invalid\): check FEISHU_APP_ID and FEISHU_APP_SECRET/,
    );
    expect(harness.fake.callsTo('send')).toHaveLength(0);
    const logged = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'feishu rejected FEISHU_APP_ID/FEISHU_APP_SECRET');
    expect(logged?.level).toBe(50);
    // The secret itself never reaches the logs.
    expect(logLines.join('\n')).not.toContain(h.secrets.appSecret);
  });

  it('fetches a new tenant token after Feishu revokes the cached one', async () => {
    const s = await serve(await makeFeishuHarness());
    const request = await file(s);
    const messageRef = await sentRef(s, request.id);
    harness.fake.revokeTokens();
    await s.gateway.decide({ requestId: request.id, decision: 'approve', actor: { channel: 'api', userId: 'ops' } });
    await eventually(async () => expect(visibleText(harness.fake.card(messageRef))).toContain('Approved by api:ops'));
    expect(harness.fake.callsTo('token')).toHaveLength(2);
    const updateFailed = (await s.store.events(request.id)).find((e) => e.type === 'update_failed');
    expect(String(updateFailed?.detail.error)).toContain('99991663');
  });

  it('patches the card with update_multi when the request expires', async () => {
    // Expiry on a ManualClock: no real seconds waited (the delivery runs on the same clock, hence advance(0)).
    const clock = new ManualClock(Date.now());
    const s = await serve(await makeFeishuHarness(), clock);
    const request = await file(s, { timeoutS: 60 });
    await clock.advance(0);
    const messageRef = await sentRef(s, request.id);
    await clock.advance(60_000);
    await eventually(async () => expect((await s.gateway.get(request.id))?.status).toBe('expired'));
    const patched = await eventually(async () => {
      const [patch] = harness.fake.callsTo('patch');
      expect(patch?.path).toBe(`/open-apis/im/v1/messages/${messageRef}`);
      return JSON.parse(String(patch!.body.content)) as Record<string, unknown>;
    });
    expect(patched).toMatchObject({ schema: '2.0', config: { update_multi: true }, header: { template: 'grey' } });
    expect(findAll(patched, 'button')).toEqual([]);
    expect(visibleText(patched)).toMatch(/Expired at .* — denied by default/);
  });

  it('retries a patch that hit the per-message rate limit', async () => {
    const s = await serve(await makeFeishuHarness());
    const request = await file(s);
    const messageRef = await sentRef(s, request.id);
    harness.fake.failNext('patch', { code: 230020, msg: 'This message triggered the frequency limit' });
    await s.gateway.cancel(request.id, 'api:runtime', 'no longer needed');
    await eventually(
      async () => expect(visibleText(harness.fake.card(messageRef))).toContain('Cancelled by api:runtime'),
      5000,
    );
    expect(harness.fake.callsTo('patch')).toHaveLength(2);
  });
});

describe('feishu errors, adapter level', () => {
  let harness: FeishuHarness;
  afterEach(async () => harness.close());

  it("maps rate limiting to RateLimitedError with Feishu's reset time", async () => {
    harness = await makeFeishuHarness();
    harness.fake.failNext('send', {
      status: 429,
      code: 99991400,
      msg: 'request trigger frequency limit',
      headers: { 'x-ogw-ratelimit-reset': '3' },
    });
    const error = await harness.channel.send(pendingRequest(), 'oc_chat').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3000);
  });

  it('maps an invalid receive id and an unknown message to permanent errors', async () => {
    harness = await makeFeishuHarness();
    harness.fake.failNext('send', { code: 99992361, msg: 'open_id cross app' });
    await expect(harness.channel.send(pendingRequest(), 'ou_other_app')).rejects.toBeInstanceOf(PermanentChannelError);
    await expect(harness.channel.send(pendingRequest(), '  ')).rejects.toBeInstanceOf(PermanentChannelError);
    await expect(
      harness.channel.update(pendingRequest({ status: 'denied' }), { target: 'oc_chat', messageRef: 'om_gone' }),
    ).rejects.toBeInstanceOf(PermanentChannelError);
  });

  it('treats an HTTP 5xx as retryable', async () => {
    harness = await makeFeishuHarness();
    harness.fake.failNext('send', { status: 503 });
    const error = await harness.channel.send(pendingRequest(), 'oc_chat').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PermanentChannelError);
    expect((error as Error).message).toBe('Feishu send card failed: HTTP 503');
  });
});
