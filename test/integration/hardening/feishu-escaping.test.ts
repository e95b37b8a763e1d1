/**
 * Feishu's equivalent of the Slack escaping item (#18): text the runtime does not control (tool names, approver
 * names, reasons, arguments) must not become an `@all` mention, a link or styled text in Feishu. Cards carry it as
 * `plain_text` only; reminders, which were `text` messages (parsed for `<at user_id="all">` and links), are
 * plain-text cards too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approvalCard, notFoundCard, reminderCard } from '../../../channels/feishu/card-json.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const HOSTILE = '<at user_id="all"></at><at id=all></at>[click](https://evil.example) **bold**';

/** Every `{tag, content}` text node of a card, wherever it sits. */
function textNodes(
  node: unknown,
  found: { tag: unknown; content: string }[] = [],
): { tag: unknown; content: string }[] {
  if (Array.isArray(node)) for (const item of node) textNodes(item, found);
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (typeof record.content === 'string') found.push({ tag: record.tag, content: record.content });
    // config.summary is the chat-list preview, plain text by definition (no tag to choose).
    for (const [key, value] of Object.entries(record)) if (key !== 'summary') textNodes(value, found);
  }
  return found;
}

/** The card's text reaches Feishu only as plain_text: no markdown element, no lark_md text. */
function expectPlainOnly(card: unknown): void {
  const json = JSON.stringify(card);
  expect(json).not.toMatch(/"tag":"(markdown|lark_md|at|a)"/);
  const hostile = textNodes(card).filter((n) => n.content.includes('<at'));
  expect(hostile.length).toBeGreaterThan(0);
  for (const node of hostile) expect(node.tag).toBe('plain_text');
}

let clock: ManualClock;
let feishu: FeishuHarness;
let server: TestServer;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  feishu = await makeFeishuHarness();
  server = await startTestServer({
    clock,
    scheduler: new InProcessScheduler({ clock }),
    channels: [feishu.channel],
    policy: 'policies:\n  - name: all\n    match: { tool: "*" }\n    timeout_s: 3600\n    remind_after_s: 600\n',
  });
});
afterEach(async () => {
  await server.close();
  await feishu.close();
});

describe('feishu text cannot mention @all or fake links', () => {
  it('cards carry hostile tool names, approvers, arguments and reasons as plain_text only', async () => {
    const { request } = await server.gateway.request({
      toolName: HOSTILE,
      toolArgs: { note: HOSTILE },
      approvers: [`web:alice`],
      channels: [{ type: 'feishu', target: feishu.target }],
    });
    for (const language of ['en', 'zh'] as const) expectPlainOnly(approvalCard(request, { language }));
    await server.gateway.decide({
      requestId: request.id,
      decision: 'deny',
      reason: HOSTILE,
      actor: { channel: 'web', userId: 'alice', name: HOSTILE },
    });
    const denied = (await server.gateway.get(request.id))!;
    expect(denied.status).toBe('denied');
    const card = approvalCard(denied, { language: 'en' });
    expectPlainOnly(card);
    expect(JSON.stringify(notFoundCard('en'))).not.toMatch(/markdown|lark_md/);
  });

  it('a reminder is a plain-text card, not a text message Feishu scans for <at> mentions', async () => {
    const { request } = await server.gateway.request({
      toolName: HOSTILE,
      toolArgs: {},
      channels: [{ type: 'feishu', target: feishu.target }],
    });
    await clock.advance(0);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    await clock.advance(600_000);
    const reply = await eventually(() => {
      const found = feishu.fake.callsTo('reply')[0];
      if (!found) throw new Error('no reply yet');
      return found;
    });
    expect(reply.body).toMatchObject({ msg_type: 'interactive' });
    const card = JSON.parse(String(reply.body.content)) as unknown;
    expectPlainOnly(card);
    expect(card).toEqual(reminderCard(textNodes(card).at(-1)!.content));
  });
});
