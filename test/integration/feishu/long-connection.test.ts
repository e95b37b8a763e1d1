/**
 * Long-connection mode (`FEISHU_MODE=ws`): taps arrive through `lark.WSClient`, which hands each event to the
 * channel's `EventDispatcher` with `invoke(data, {needCheck: false})`. The socket is not faked; the test drives
 * the dispatcher exactly as the client does, and checks the client is built and started with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DecideOutcome, DecisionSink } from '../../../src/channel/channel.js';
import { FEISHU_EVENTS_PATH, type WsClientLike } from '../../../channels/feishu/index.js';
import { cardActionPayload } from '../../fakes/feishu/callbacks.js';
import { findAll, visibleText } from '../../fakes/feishu/fake-feishu.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { pendingRequest } from './fixtures.js';

process.env.NO_PROXY = '127.0.0.1';

interface Reply {
  toast: { type: string; content: string };
  card: { type: string; data: Record<string, unknown> };
}

/** Records what the channel does with its long-connection client. */
function recordingWsClient() {
  const record = { params: null as unknown, started: null as { eventDispatcher: unknown } | null, closed: false };
  const factory = (params: unknown): WsClientLike => {
    record.params = params;
    return {
      start: (p) => void (record.started = p),
      close: () => void (record.closed = true),
    };
  };
  return { record, factory };
}

describe('feishu long connection', () => {
  let harness: FeishuHarness;
  let server: TestServer | null = null;

  afterEach(async () => {
    await server?.close();
    server = null;
    await harness.close();
  });

  it('starts a WSClient with the dispatcher, mounts no HTTP route, and decides taps it delivers', async () => {
    const { record, factory } = recordingWsClient();
    harness = await makeFeishuHarness(
      { mode: 'ws', encryptKey: null, verificationToken: null },
      { wsClientFactory: factory },
    );
    server = await startTestServer({ channels: [harness.channel] });
    expect(record.params).toEqual({
      appId: harness.secrets.appId,
      appSecret: harness.secrets.appSecret,
      domain: harness.fake.url,
    });
    expect(record.started?.eventDispatcher).toBe(harness.channel.dispatcher);
    expect((await fetch(`${server.url}${FEISHU_EVENTS_PATH}`, { method: 'POST', body: '{}' })).status).toBe(404);

    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      channels: [{ type: 'feishu', target: 'oc_ops' }],
      approvers: ['feishu:ou_boss'],
    });
    const messageRef = await eventually(async () => {
      const [m] = await server!.store.messages(request.id);
      expect(m?.status).toBe('sent');
      return m!.messageRef!;
    });
    const value = { request_id: request.id, nonce: request.nonce };
    const dispatcher = record.started!.eventDispatcher as {
      invoke(data: unknown, params: { needCheck: boolean }): Promise<Reply>;
    };
    // What WSClient hands the dispatcher: the event JSON as Feishu pushed it, plain (the socket is authenticated).
    const tap = (openId: string, name: string, reason?: string) =>
      dispatcher.invoke(cardActionPayload(harness.secrets, { openId, value, name, reason, messageId: messageRef }), {
        needCheck: false,
      });

    const refused = await tap('ou_intern', 'tollgate_approve');
    expect(refused.toast).toEqual({ type: 'error', content: 'You are not an approver of this request.' });
    const reply = await tap('ou_boss', 'tollgate_deny', 'use the canary first');
    expect(reply.toast).toEqual({ type: 'success', content: 'Denied' });
    expect(reply.card.type).toBe('raw');
    expect(findAll(reply.card.data, 'button')).toEqual([]);
    expect(await server.gateway.get(request.id)).toMatchObject({
      status: 'denied',
      respondedBy: 'feishu:ou_boss',
      respondedVia: 'feishu',
      reason: 'use the canary first',
    });
    await eventually(async () =>
      expect(visibleText(harness.fake.card(messageRef))).toContain('Denied by feishu:ou_boss'),
    );

    await server.close();
    server = null;
    expect(record.closed).toBe(true);
  });
});

describe('feishu card-action handler', () => {
  let harness: FeishuHarness;
  afterEach(async () => harness.close());

  function sinkWith(decide: DecisionSink['decide']): DecisionSink {
    const request = pendingRequest({ id: 'req-1' });
    return { decide, get: async (id) => (id === request.id ? request : null) };
  }

  async function invoke(payload: unknown): Promise<Reply> {
    return (await harness.channel.dispatcher.invoke(payload, { needCheck: false })) as Reply;
  }

  it('answers within its time budget while a slow decision is still being applied', async () => {
    const { factory } = recordingWsClient();
    harness = await makeFeishuHarness({ mode: 'ws' }, { wsClientFactory: factory, answerWithinMs: 50 });
    let release!: (outcome: DecideOutcome) => void;
    const pending = new Promise<DecideOutcome>((resolve) => (release = resolve));
    await harness.channel.start(sinkWith(() => pending));
    const reply = await invoke(
      cardActionPayload(harness.secrets, {
        openId: 'ou_a',
        value: { request_id: 'req-1', nonce: 'nonce-0123456789' },
        name: 'tollgate_approve',
      }),
    );
    expect(reply.toast).toEqual({ type: 'info', content: 'Still working on it; the card will update in a moment.' });
    expect(findAll(reply.card.data, 'button')).toHaveLength(2);
    release({ ok: false, code: 'not_found', message: 'gone' });
  });

  it('answers a button it does not know with an error toast and a card, never a bare {}', async () => {
    const { factory } = recordingWsClient();
    harness = await makeFeishuHarness({ mode: 'ws' }, { wsClientFactory: factory });
    const decided: unknown[] = [];
    await harness.channel.start(
      sinkWith(async (event) => (decided.push(event), { ok: false, code: 'invalid', message: 'no' })),
    );
    const unknownName = await invoke(
      cardActionPayload(harness.secrets, {
        openId: 'ou_a',
        value: { request_id: 'req-1', nonce: 'n' },
        name: 'other_button',
      }),
    );
    expect(unknownName.toast.type).toBe('error');
    expect(visibleText(unknownName.card.data)).toContain('Approval needed: deploy_service');
    const noValue = await invoke(
      cardActionPayload(harness.secrets, { openId: 'ou_a', value: 'not-json', name: 'tollgate_approve' }),
    );
    expect(noValue.toast).toEqual({ type: 'error', content: 'This button does not belong to a tollgate request.' });
    expect(visibleText(noValue.card.data)).toContain('Request not found');
    const unknownRequest = await invoke(
      cardActionPayload(harness.secrets, {
        openId: 'ou_a',
        value: { request_id: 'req-404', nonce: 'n' },
        name: 'tollgate_deny',
      }),
    );
    expect(unknownRequest.toast.type).toBe('error');
    expect(visibleText(unknownRequest.card.data)).toContain('Request not found');
    expect(decided).toHaveLength(1);
  });
});
