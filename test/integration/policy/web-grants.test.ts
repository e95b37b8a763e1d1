/** The web inbox shows a rule's grant buttons, and pressing one approves and gives the grant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { formValue, WebClient } from '../web/web-client.js';

const TOKEN = 'bob-token-0123456789abcdef';
const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["web:bob"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id] }
  - name: payments
    match: { tool: pay }
    approvers: ["web:bob"]
    grants: none
`;

let server: TestServer;
let bob: WebClient;

beforeEach(async () => {
  server = await startTestServer({
    channels: [createWebChannel({ users: [{ name: 'bob', token: TOKEN }] })],
    policy: POLICY,
  });
  bob = new WebClient(server.url);
  await bob.signIn('bob', TOKEN);
});
afterEach(async () => {
  await server.close();
});

describe('web inbox grant buttons', () => {
  it('shows the rule’s grant button; pressing it approves and later requests in scope are approved by the grant', async () => {
    const { request } = await server.gateway.request({
      toolName: 'deploy',
      toolArgs: { env: 'prod' },
      agentId: 'release-bot',
    });
    const page = await bob.request(`/ui/requests/${request.id}`);
    expect(page.text).toContain('name="grant" value="Approve for 1 hour"');
    const res = await bob.decide(request.id, { decision: 'approve', grant: 'Approve for 1 hour' });
    expect(res.path).toBe(`/ui/requests/${request.id}?notice=approved`);
    const events = await server.gateway.events(request.id);
    expect(events.find((e) => e.type === 'grant_created')).toMatchObject({ actor: 'web:bob', channel: 'web' });
    const later = await server.gateway.request({
      toolName: 'deploy',
      toolArgs: { env: 'prod' },
      agentId: 'release-bot',
    });
    expect(later.request).toMatchObject({ status: 'approved', respondedVia: 'grant' });
    expect(later.request.respondedBy).toMatch(/^grant:/);
  });

  it('a grants: none rule shows no grant button, and a forged grant post changes nothing', async () => {
    const { request } = await server.gateway.request({ toolName: 'pay', toolArgs: { amount: 5 } });
    const page = await bob.request(`/ui/requests/${request.id}`);
    expect(page.text).not.toContain('name="grant"');
    const res = await bob.decide(request.id, { decision: 'approve', grant: 'Approve for 1 hour' });
    expect(res.path).toBe(`/ui/requests/${request.id}?notice=invalid`);
    expect((await server.gateway.get(request.id))!.status).toBe('pending');
  });

  it('the grants page lists grants in force and revokes one: later requests are asked again, grant_revoked is on the origin request', async () => {
    const { request } = await server.gateway.request({ toolName: 'deploy', toolArgs: {}, agentId: 'release-bot' });
    await bob.decide(request.id, { decision: 'approve', grant: 'Approve for 1 hour' });
    const page = await bob.request('/ui/grants');
    expect(page.text).toContain('Approve for 1 hour');
    expect(page.text).toContain('release-bot');
    const id = /data-grant-id="([^"]+)"/.exec(page.text)![1]!;
    const res = await bob.request(`/ui/grants/${id}/revoke`, {
      form: { _csrf: formValue(page.text, '_csrf') },
      headers: { origin: new URL(server.url).origin },
    });
    expect(res.path).toBe('/ui/grants?notice=revoked');
    expect(res.text).toContain('No standing grant is in force.');
    expect((await server.gateway.events(request.id)).find((e) => e.type === 'grant_revoked')).toMatchObject({
      actor: 'web:bob',
      channel: 'web',
      detail: { grant: id },
    });
    expect(
      (await server.gateway.request({ toolName: 'deploy', toolArgs: {}, agentId: 'release-bot' })).request.status,
    ).toBe('pending');
  });
});
