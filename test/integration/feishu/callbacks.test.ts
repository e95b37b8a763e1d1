/**
 * Taps in: callbacks encrypted and signed as Feishu sends them, posted to `POST /channels/feishu/events`.
 * Every refused callback is a 401 (never the SDK's silent 200) and changes nothing; every card action is answered
 * with a toast and the card as it now stands.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEISHU_EVENTS_PATH } from '../../../channels/feishu/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { challengePayload, feishuEncrypt, postCallback, signCallback } from '../../fakes/feishu/callbacks.js';
import { findAll, visibleText } from '../../fakes/feishu/fake-feishu.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

process.env.NO_PROXY = '127.0.0.1';

describe('feishu callbacks', () => {
  let harness: FeishuHarness;
  let server: TestServer;

  beforeEach(async () => {
    harness = await makeFeishuHarness();
    server = await startTestServer({ channels: [harness.channel] });
  });

  afterEach(async () => {
    await server.close();
    await harness.close();
  });

  async function file(body: Record<string, unknown> = {}): Promise<ConfirmationRequest> {
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'feishu', target: 'oc_ops' }],
      ...body,
    });
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    return request;
  }

  async function eventTypes(id: string): Promise<string[]> {
    return (await server.store.events(id)).map((e) => e.type);
  }

  it('answers an approval with a success toast and the decided card; responded-by is feishu:<open_id>', async () => {
    const request = await file();
    const answer = await harness.tapAnswer(server, request, 'approve', 'ou_alice');
    expect(answer.status).toBe(200);
    expect(answer.body?.toast).toEqual({ type: 'success', content: 'Approved' });
    const card = answer.body?.card as { type: string; data: Record<string, unknown> };
    expect(card.type).toBe('raw');
    expect(card.data).toMatchObject({ schema: '2.0', config: { update_multi: true }, header: { template: 'green' } });
    expect(findAll(card.data, 'button')).toEqual([]);
    expect(visibleText(card.data)).toContain('Approved by feishu:ou_alice');
    const decided = await server.gateway.get(request.id);
    expect(decided).toMatchObject({
      status: 'approved',
      respondedBy: 'feishu:ou_alice',
      respondedVia: 'feishu',
      allowed: true,
    });
  });

  it('delivers the reason typed on the card to the runtime', async () => {
    const request = await file();
    const answer = await harness.tapAnswer(server, request, 'deny', 'ou_alice', {
      reason: '  not during the freeze  ',
    });
    expect(answer.body?.toast).toEqual({ type: 'success', content: 'Denied' });
    const response = await server.api(`/v1/requests/${request.id}`);
    expect(await response.json()).toMatchObject({
      status: 'denied',
      reason: 'not during the freeze',
      responded_by: 'feishu:ou_alice',
      allowed: false,
    });
  });

  it('refuses a forged signature with 401 and changes nothing', async () => {
    const request = await file();
    const answer = await harness.tapAnswer(server, request, 'approve', 'ou_alice', { sign: { signingKey: 'guess' } });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ status: 401, detail: 'Feishu callback refused: signature does not match' });
    expect((await server.gateway.get(request.id))?.status).toBe('pending');
    expect(await eventTypes(request.id)).not.toContain('decision_rejected');
  });

  it('refuses an unsigned callback, a wrong verification token and a body encrypted with another key', async () => {
    const request = await file();
    expect((await harness.tapAnswer(server, request, 'approve', 'ou_alice', { sign: { unsigned: true } })).status).toBe(
      401,
    );
    const wrongToken = await harness.tapAnswer(server, request, 'approve', 'ou_alice', { token: 'vt-wrong' });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.body?.detail).toContain('verification token');
    const payload = JSON.stringify({ encrypt: feishuEncrypt(JSON.stringify({ schema: '2.0' }), 'another-key') });
    const signed = signCallback(JSON.parse(payload), harness.secrets, { encrypt: false });
    expect((await postCallback(harness.eventsUrl(server), signed)).status).toBe(401);
    expect((await server.gateway.get(request.id))?.status).toBe('pending');
  });

  it('refuses a replayed callback: an old timestamp, or the same signed request twice', async () => {
    const request = await file();
    const old = await harness.tapAnswer(server, request, 'deny', 'ou_alice', {
      sign: { timestamp: Math.floor(Date.now() / 1000) - 600 },
    });
    expect(old.status).toBe(401);
    expect(old.body?.detail).toContain('replay window');
    const future = await harness.tapAnswer(server, request, 'deny', 'ou_alice', {
      sign: { timestamp: Math.floor(Date.now() / 1000) + 600 },
    });
    expect(future.status).toBe(401);
    expect((await server.gateway.get(request.id))?.status).toBe('pending');

    const first = await harness.tapAnswer(server, request, 'approve', 'ou_alice', { sign: { nonce: 'n-once' } });
    expect(first.status).toBe(200);
    const again = await harness.tapAnswer(server, request, 'deny', 'ou_mallory', { sign: { nonce: 'n-once' } });
    expect(again.status).toBe(401);
    expect(again.body?.detail).toContain('nonce already used');
    expect(await server.gateway.get(request.id)).toMatchObject({ status: 'approved', respondedBy: 'feishu:ou_alice' });
  });

  it('answers a tap from someone off the allowlist with an error toast and records decision_rejected', async () => {
    const request = await file({ approvers: ['feishu:ou_boss'] });
    const answer = await harness.tapAnswer(server, request, 'approve', 'ou_intern');
    expect(answer.status).toBe(200);
    expect(answer.body?.toast).toEqual({ type: 'error', content: 'You are not an approver of this request.' });
    const card = (answer.body?.card as { data: unknown }).data;
    expect(findAll(card, 'button')).toHaveLength(2);
    const rejected = (await server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected).toMatchObject({
      actor: 'feishu:ou_intern',
      channel: 'feishu',
      detail: { code: 'not_authorized' },
    });
    expect((await server.gateway.get(request.id))?.status).toBe('pending');
  });

  it('rejects a button whose nonce does not match the request', async () => {
    const request = await file();
    const answer = await harness.tapAnswer(server, request, 'approve', 'ou_alice', { nonce: 'stolen' });
    expect(answer.body?.toast).toEqual({ type: 'error', content: 'This button does not belong to this request.' });
    expect((await server.gateway.get(request.id))?.status).toBe('pending');
  });

  it('decides once on a double tap; the second tap gets a warning and the decided card', async () => {
    const request = await file();
    const answers = await Promise.all([
      harness.tapAnswer(server, request, 'approve', 'ou_alice'),
      harness.tapAnswer(server, request, 'deny', 'ou_bob'),
    ]);
    const toasts = answers.map((a) => (a.body?.toast as { type: string }).type).sort();
    expect(toasts).toEqual(['success', 'warning']);
    const types = await eventTypes(request.id);
    expect(types.filter((t) => t === 'approved' || t === 'denied')).toHaveLength(1);
    expect(types).toContain('decision_rejected');
    const final = await server.gateway.get(request.id);
    for (const answer of answers) {
      const card = (answer.body?.card as { data: unknown }).data;
      expect(findAll(card, 'button')).toEqual([]);
      expect(visibleText(card)).toContain(final!.respondedBy!);
    }
  });

  it('changes nothing on a late tap after expiry and shows the expired card', async () => {
    // Expiry on a ManualClock, not real seconds: this test swaps in a server whose clock and scheduler it steps.
    await server.close();
    const clock = new ManualClock(Date.now());
    server = await startTestServer({
      channels: [harness.channel],
      clock,
      scheduler: new InProcessScheduler({ clock }),
    });
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'feishu', target: 'oc_ops' }],
      timeoutS: 60,
    });
    await clock.advance(0);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    await clock.advance(60_000);
    await eventually(async () => expect((await server.gateway.get(request.id))?.status).toBe('expired'));
    const answer = await harness.tapAnswer(server, request, 'approve', 'ou_alice');
    expect(answer.status).toBe(200);
    expect(answer.body?.toast).toEqual({ type: 'warning', content: 'This request was already expired.' });
    const card = (answer.body?.card as { data: Record<string, unknown> }).data;
    expect(card.header).toMatchObject({ template: 'grey' });
    expect(visibleText(card)).toMatch(/Expired at .* — denied by default/);
    expect((await server.gateway.get(request.id))?.status).toBe('expired');
  });

  it('answers the URL-verification challenge, plain or encrypted, only with the right token', async () => {
    const url = harness.eventsUrl(server);
    const plain = await postCallback(
      url,
      signCallback(challengePayload(harness.secrets, 'ch-plain'), harness.secrets, { encrypt: false, unsigned: true }),
    );
    expect(plain).toEqual({ status: 200, body: { challenge: 'ch-plain' } });
    const encrypted = await postCallback(
      url,
      signCallback(challengePayload(harness.secrets, 'ch-secret'), harness.secrets),
    );
    expect(encrypted).toEqual({ status: 200, body: { challenge: 'ch-secret' } });
    const wrong = await postCallback(
      url,
      signCallback(challengePayload(harness.secrets, 'ch-x', 'vt-wrong'), harness.secrets, {
        encrypt: false,
        unsigned: true,
      }),
    );
    expect(wrong.status).toBe(401);
  });

  it('answers malformed bodies with a 400 problem', async () => {
    const response = await fetch(`${server.url}${FEISHU_EVENTS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(((await response.json()) as { detail: string }).detail).toContain('not JSON');
  });
});

describe('feishu callbacks in Chinese', () => {
  it('words the toast and the card in Chinese when configured', async () => {
    const harness = await makeFeishuHarness({ language: 'zh' });
    const server = await startTestServer({ channels: [harness.channel] });
    try {
      const { request } = await server.gateway.request({
        toolName: 'drop_table',
        channels: [{ type: 'feishu', target: 'oc_ops' }],
        approvers: ['feishu:ou_boss'],
      });
      await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
      const sent = harness.fake.card(harness.fake.messageFor(request.id)!.messageId)!;
      expect(visibleText(sent)).toContain('需要审批：drop_table');
      expect(findAll(sent, 'button').map((b) => (b.text as { content: string }).content)).toEqual(['批准', '拒绝']);
      const refused = await harness.tapAnswer(server, request, 'approve', 'ou_intern');
      expect(refused.body?.toast).toEqual({ type: 'error', content: '你不是该请求的审批人。' });
      const answer = await harness.tapAnswer(server, request, 'deny', 'ou_boss', { reason: '太危险' });
      expect(answer.body?.toast).toEqual({ type: 'success', content: '已拒绝' });
      const text = visibleText((answer.body?.card as { data: unknown }).data);
      expect(text).toContain('已拒绝：drop_table');
      expect(text).toContain('已由 feishu:ou_boss 拒绝');
      expect(text).toContain('理由：“太危险”');
    } finally {
      await server.close();
      await harness.close();
    }
  });
});
