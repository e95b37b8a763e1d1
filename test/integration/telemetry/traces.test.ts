// OpenTelemetry traces end to end, with real parts only: `tollgate serve` as a child process started with the standard
// OTEL_* variables, its real SDK exporting OTLP/HTTP JSON to a fake collector on 127.0.0.1, the real Slack channel
// against the fake Slack, and an agent whose own SDK (registered here) makes the span GateClient files inside. The
// spans are checked as the collector received them, after a graceful stop flushed them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GateClient } from '../../../src/client/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { FakeOtlp, type ReceivedSpan } from '../../fakes/otlp/fake-otlp.js';
import { buttonsOf } from '../../fakes/slack/block-rules.js';
import { blockActionsPayload, postSlackCallback } from '../../fakes/slack/callbacks.js';
import { FakeSlack } from '../../fakes/slack/fake-slack.js';
import { startChildGateway, type ChildGateway } from '../../helpers/child-gateway.js';
import { eventually } from '../../helpers/eventually.js';

const SLACK_TOKEN = 'xoxb-otel-test';
const SLACK_SECRET = 'otel-test-signing-secret';

// The agent's side: an SDK that makes real spans and registers the W3C propagator GateClient injects with.
const agent = new NodeTracerProvider();
beforeAll(() => agent.register());
afterAll(async () => {
  await agent.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

let dir: string;
let otlp: FakeOtlp;
let slack: FakeSlack;
let gateway: ChildGateway | undefined;
afterEach(async () => {
  await gateway?.kill('SIGKILL');
  gateway = undefined;
  await otlp?.close();
  await slack?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `fn` inside a span of the agent's own; resolves with fn's result and the span's context. */
async function inAgentSpan<T>(name: string, fn: () => Promise<T>): Promise<{ result: T; span: SpanContext }> {
  return trace.getTracer('agent').startActiveSpan(name, async (span) => {
    try {
      return { result: await fn(), span: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

/** Taps the Slack card's button `index` (0 approve) as `userId`, signed as Slack signs it. */
async function tap(request: ApiRequest, index: number, userId: string): Promise<void> {
  const message = await eventually(() => {
    const found = slack
      .allMessages()
      .find((m) => buttonsOf(m.versions[0]!.blocks).some((b) => b.value.startsWith(`${request.id}:`)));
    if (!found) throw new Error(`no card for ${request.id} yet`);
    return found;
  }, 15_000);
  const button = buttonsOf(message.versions[0]!.blocks).find((b) => b.actionId === `tollgate_option_${index}`)!;
  const payload = blockActionsPayload({
    userId,
    channel: message.channel,
    ts: message.ts,
    actionId: button.actionId,
    value: button.value,
    responseUrl: slack.responseUrl(userId),
    blocks: message.versions[0]!.blocks,
  });
  const response = await postSlackCallback(`${gateway!.url}/channels/slack/events`, SLACK_SECRET, payload);
  expect(response.status).toBe(200);
}

/** The one span named `name` about `requestId`. */
function one(name: string, requestId: string): ReceivedSpan {
  const spans = otlp.named(name, requestId);
  expect(
    spans,
    `${name} of ${requestId}: ${JSON.stringify(otlp.spans.map((s) => [s.name, s.attributes['tollgate.request.id']]))}`,
  ).toHaveLength(1);
  return spans[0]!;
}

describe('OpenTelemetry traces', () => {
  it('follows a request from the agent span through policy, card delivery, a Slack tap, the wake-up and an expiry', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-otel-'));
    [otlp, slack] = await Promise.all([FakeOtlp.start(), FakeSlack.start({ token: SLACK_TOKEN })]);
    gateway = await startChildGateway(join(dir, 'tollgate.db'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.apiUrl,
      SLACK_BOT_ID: 'B0BOT',
      SLACK_BOT_USER_ID: 'U0BOT',
    });
    const client = new GateClient({ url: gateway.url, token: gateway.token });

    // 1. Filed inside the agent's span; a long-poll parks on it; the card goes to Slack; an approver taps Approve.
    const deploy = await inAgentSpan('agent.tool_call', () =>
      client.request({
        tool_name: 'deploy',
        tool_args: { env: 'prod' },
        channels: [{ type: 'slack', target: 'C0APPROVALS' }],
      }),
    );
    const verdict = client.wait(deploy.result.id);
    await sleep(500); // the long-poll is parked by then (it is one local round trip)
    await tap(deploy.result, 0, 'U0ALICE');
    expect((await verdict).status).toBe('approved');

    // 2. Decided over the API by a tool of the approver's that runs its own trace: its span is the decision's parent.
    const rollback = await inAgentSpan('agent.tool_call', () =>
      client.request({ tool_name: 'rollback', channels: [{ type: 'web' }] }),
    );
    const approver = await inAgentSpan('approver.review', () =>
      client.decide(rollback.result.id, { decision: 'deny', approver: 'web:bob', reason: 'not now' }),
    );

    // 3. A one-second request nobody answers.
    const drop = await inAgentSpan('agent.tool_call', () =>
      client.request({ tool_name: 'drop_table', timeout_s: 1, channels: [{ type: 'web' }] }),
    );
    expect((await client.wait(drop.result.id, { timeoutMs: 15_000 })).status).toBe('expired');

    // 4. Filed through express (the lean routes leave gzip bodies to it): body parsing keeps the caller's context.
    const compressed = await inAgentSpan('agent.tool_call', async () => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${gateway!.token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      };
      propagation.inject(context.active(), headers);
      const response = await fetch(`${gateway!.url}/v1/requests`, {
        method: 'POST',
        headers,
        body: gzipSync(JSON.stringify({ tool_name: 'compressed', channels: [{ type: 'web' }] })),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as ApiRequest;
    });

    // A graceful stop flushes the spans still in the SDK's batch.
    expect(await gateway.kill('SIGTERM')).toBe(0);
    gateway = undefined;
    expect(otlp.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    expect(new Set(otlp.spans.map((s) => s.resource['service.name']))).toEqual(new Set(['tollgate']));
    expect(new Set(otlp.spans.map((s) => s.scope))).toEqual(new Set(['tollgate']));

    // The create span is the agent span's child, and the policy span the create's.
    const created = one('tollgate.request.create', deploy.result.id);
    expect(created).toMatchObject({ traceId: deploy.span.traceId, parentSpanId: deploy.span.spanId });
    expect(created.attributes).toMatchObject({
      'tollgate.tool.name': 'deploy',
      'tollgate.request.status': 'pending',
      'tollgate.request.created': true,
    });
    const policy = otlp.spans.find((s) => s.name === 'tollgate.policy.evaluate' && s.parentSpanId === created.spanId);
    expect(policy?.attributes).toMatchObject({ 'tollgate.policy.rule': 'default', 'tollgate.policy.decision': 'ask' });
    // The card's delivery, the Slack tap (no traceparent: under the create span) and the wake-up join that trace.
    const delivered = one('tollgate.card.deliver', deploy.result.id);
    expect(delivered).toMatchObject({ traceId: deploy.span.traceId, parentSpanId: created.spanId });
    expect(delivered.attributes).toMatchObject({
      'tollgate.channel': 'slack',
      'tollgate.card.target': 'C0APPROVALS',
      'tollgate.delivery.attempt': 1,
    });
    const decided = one('tollgate.request.decide', deploy.result.id);
    expect(decided).toMatchObject({ traceId: deploy.span.traceId, parentSpanId: created.spanId });
    expect(decided.attributes).toMatchObject({
      'tollgate.decision': 'approve',
      'tollgate.channel': 'slack',
      'tollgate.decision.outcome': 'final',
      'tollgate.request.status': 'approved',
    });
    const woken = one('tollgate.waiters.wake', deploy.result.id);
    expect(woken).toMatchObject({ traceId: deploy.span.traceId, parentSpanId: decided.spanId });
    expect(woken.attributes['tollgate.waiters.count']).toBeGreaterThanOrEqual(1);
    // The card brought up to date after the tap, under the create span too.
    expect(one('tollgate.card.update', deploy.result.id)).toMatchObject({
      traceId: deploy.span.traceId,
      parentSpanId: created.spanId,
    });

    // An API decision with its caller's traceparent: a child of the caller's span, linked to the create span.
    const rollbackCreated = one('tollgate.request.create', rollback.result.id);
    expect(rollbackCreated).toMatchObject({ traceId: rollback.span.traceId, parentSpanId: rollback.span.spanId });
    const denied = one('tollgate.request.decide', rollback.result.id);
    expect(denied).toMatchObject({ traceId: approver.span.traceId, parentSpanId: approver.span.spanId });
    expect(denied.links).toEqual([{ traceId: rollbackCreated.traceId, spanId: rollbackCreated.spanId }]);
    expect(denied.attributes).toMatchObject({
      'tollgate.channel': 'api',
      'tollgate.decision': 'deny',
      'tollgate.request.status': 'denied',
    });
    // The web inbox reads the database: no delivery job, no delivery span.
    expect(otlp.named('tollgate.card.deliver', rollback.result.id)).toEqual([]);

    expect(one('tollgate.request.create', compressed.result.id)).toMatchObject({
      traceId: compressed.span.traceId,
      parentSpanId: compressed.span.spanId,
    });

    // The expiry, under its request's create span.
    const dropCreated = one('tollgate.request.create', drop.result.id);
    const expired = one('tollgate.request.expire', drop.result.id);
    expect(expired).toMatchObject({ traceId: drop.span.traceId, parentSpanId: dropCreated.spanId });
    expect(expired.attributes).toMatchObject({
      'tollgate.request.status': 'expired',
      'tollgate.request.on_timeout': 'deny',
    });
  }, 60_000);
});
