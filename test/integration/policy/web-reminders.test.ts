/** The web inbox singles out requests a policy reminded or escalated. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { WebClient } from '../web/web-client.js';

const TOKEN = 'bob-token-0123456789abcdef';
const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:bob"]
    timeout_s: 3600
    remind_after_s: 600
    escalate: [{ after_s: 1200, approvers: ["web:carol"] }]
`;

let clock: ManualClock;
let server: TestServer;
let bob: WebClient;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  server = await startTestServer({
    clock,
    scheduler: new InProcessScheduler({ clock }),
    channels: [createWebChannel({ users: [{ name: 'bob', token: TOKEN }] })],
    policy: POLICY,
  });
  bob = new WebClient(server.url);
  await bob.signIn('bob', TOKEN);
});
afterEach(async () => {
  await server.close();
});

describe('web inbox reminders', () => {
  it('marks a reminded request, then an escalated one; others stay plain', async () => {
    const { request } = await server.gateway.request({ toolName: 'deploy', toolArgs: {} });
    await server.gateway.request({ toolName: 'other', toolArgs: {} });
    expect((await bob.request('/ui')).text).not.toContain('class="notice bad nudge"');
    await clock.advance(600_000);
    const reminded = (await bob.request('/ui')).text;
    expect(reminded).toContain(`class="card item nudged" data-request-id="${request.id}"`);
    expect(reminded).toContain('Reminder: still waiting for a decision');
    expect(reminded.match(/class="card item nudged"/g)).toHaveLength(1);
    await clock.advance(600_000);
    expect((await bob.request('/ui')).text).toContain('Escalated: still waiting after its reminder');
  });
});
