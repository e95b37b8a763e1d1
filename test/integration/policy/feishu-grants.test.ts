/** Feishu cards show the grant buttons of the request's policy rule; a tap on one approves and gives the grant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cardActionPayload, postCallback, signCallback } from '../../fakes/feishu/callbacks.js';
import { findAll } from '../../fakes/feishu/fake-feishu.js';
import { makeFeishuHarness, type FeishuHarness } from '../../fakes/feishu/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["feishu:ou_alice"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id] }
  - name: payments
    match: { tool: pay }
    approvers: ["feishu:ou_alice"]
    grants: none
`;

let feishu: FeishuHarness;
let server: TestServer;

beforeEach(async () => {
  feishu = await makeFeishuHarness();
  server = await startTestServer({ channels: [feishu.channel], policy: POLICY });
});
afterEach(async () => {
  await server.close();
  await feishu.close();
});

async function fileAndWaitForCard(tool: string) {
  const { request } = await server.gateway.request({
    toolName: tool,
    toolArgs: {},
    agentId: 'release-bot',
    channels: [{ type: 'feishu', target: feishu.target }],
  });
  const message = await eventually(() => {
    const m = feishu.fake.messageFor(request.id);
    if (!m) throw new Error('no card yet');
    return m;
  });
  return { request, buttons: findAll(message.versions[0], 'button'), message };
}

describe('feishu grant buttons', () => {
  it('the card offers the rule’s grant; tapping it approves, writes the grant, and the next equal request passes by it', async () => {
    const { request, buttons, message } = await fileAndWaitForCard('deploy');
    const grantButton = buttons.find((b) => b.name === 'tollgate_grant_0')!;
    expect(grantButton).toBeDefined();
    const value = (grantButton.behaviors as { value: Record<string, unknown> }[])[0]!.value;
    const payload = cardActionPayload(feishu.secrets, {
      openId: 'ou_alice',
      value,
      name: 'tollgate_grant_0',
      messageId: message.messageId,
      chatId: message.receiveId,
    });
    const answer = await postCallback(feishu.eventsUrl(server), signCallback(payload, feishu.secrets));
    expect(answer.status).toBe(200);
    await eventually(async () => expect((await server.gateway.get(request.id))!.status).toBe('approved'));
    expect((await server.gateway.events(request.id)).map((e) => e.type)).toContain('grant_created');
    const again = await server.gateway.request({ toolName: 'deploy', toolArgs: {}, agentId: 'release-bot' });
    expect(again.request).toMatchObject({ status: 'approved', respondedVia: 'grant' });
  });

  it('a grants: none rule shows no grant button', async () => {
    const { buttons } = await fileAndWaitForCard('pay');
    expect(buttons.some((b) => String(b.name).startsWith('tollgate_grant_'))).toBe(false);
  });
});
