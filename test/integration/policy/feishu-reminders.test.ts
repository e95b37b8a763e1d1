/** A policy reminder on Feishu is a reply to the card's message, naming who may decide. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["feishu:ou_alice"]
    timeout_s: 3600
    remind_after_s: 600
`;

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
    policy: POLICY,
  });
});
afterEach(async () => {
  await server.close();
  await feishu.close();
});

describe('feishu reminders', () => {
  it('replies to the card once remind_after_s has passed', async () => {
    const { request } = await server.gateway.request({
      toolName: 'deploy',
      toolArgs: {},
      channels: [{ type: 'feishu', target: feishu.target }],
    });
    await clock.advance(0);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    const messageId = feishu.fake.messageFor(request.id)!.messageId;
    await clock.advance(600_000);
    const reply = await eventually(() => {
      const found = feishu.fake.callsTo('reply')[0];
      if (!found) throw new Error('no reply yet');
      return found;
    });
    expect(reply.path).toBe(`/open-apis/im/v1/messages/${messageId}/reply`);
    expect(reply.body).toMatchObject({ msg_type: 'interactive' });
    expect(JSON.parse(String(reply.body.content)).body.elements[0].text.content).toMatch(
      /^Reminder: Approval needed: deploy is still waiting\. Who may decide: feishu:ou_alice\./,
    );
    expect((await server.gateway.events(request.id)).map((e) => e.type)).toContain('reminded');
  });
});
