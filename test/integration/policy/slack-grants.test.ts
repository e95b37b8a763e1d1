/** Slack cards show the grant buttons of the request's policy rule; a tap on one approves and gives the grant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buttonsOf } from '../../fakes/slack/block-rules.js';
import { eventually } from '../../helpers/eventually.js';
import { startSlackGateway, type SlackGateway } from '../slack/setup.js';

const POLICY = `
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["slack:UALICE"]
    grants:
      - { label: "Approve for 1 hour", ttl_s: 3600, scope: [tool_name, agent_id] }
  - name: payments
    match: { tool: pay }
    approvers: ["slack:UALICE"]
    grants: none
`;

let env: SlackGateway;

beforeEach(async () => {
  env = await startSlackGateway({ server: { policy: POLICY } });
});
afterEach(async () => {
  await env.close();
});

describe('slack grant buttons', () => {
  it('the card offers the rule’s grant; tapping it approves, writes the grant, and the next equal request passes by it', async () => {
    const request = await env.file({ tool_name: 'deploy', agent_id: 'release-bot' });
    const buttons = buttonsOf(env.slack.messageFor(request).versions[0]!.blocks);
    expect(buttons.map((b) => [b.actionId, b.label])).toContainEqual(['tollgate_grant_0', 'Approve for 1 hour']);
    expect((await env.slack.press(env.server, request, 'tollgate_grant_0', 'UALICE')).status).toBe(200);
    await eventually(async () => expect((await env.get(request.id)).status).toBe('approved'));
    expect(await env.eventTypes(request.id)).toContain('grant_created');
    const again = await env.server.api('/v1/requests', {
      body: { tool_name: 'deploy', agent_id: 'release-bot', channels: [{ type: 'slack', target: env.slack.target }] },
    });
    expect((await again.json()) as unknown).toMatchObject({ status: 'approved', responded_via: 'grant' });
  });

  it('a grants: none rule shows no grant button', async () => {
    const request = await env.file({ tool_name: 'pay' });
    expect(
      buttonsOf(env.slack.messageFor(request).versions[0]!.blocks).some((b) =>
        b.actionId.startsWith('tollgate_grant_'),
      ),
    ).toBe(false);
  });
});
