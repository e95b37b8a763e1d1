/**
 * The Teams messaging endpoint authenticates every activity as the Bot Framework signs it: a forged signature, another
 * bot's audience, another issuer, an expired token, a serviceurl claim for another service, or no Authorization at
 * all is a 401, and neither the request nor the conversation store changes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeTeamsHarness, type TeamsHarness } from '../../fakes/teams/harness.js';
import type { SignOptions } from '../../fakes/teams/fake-teams.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

describe('teams: activity authentication', () => {
  let teams: TeamsHarness;
  let server: TestServer;

  beforeEach(async () => {
    teams = await makeTeamsHarness();
    server = await startTestServer({ channels: [teams.channel] });
    await teams.attach!(server);
  });

  afterEach(async () => {
    await server.close();
    await teams.close();
  });

  async function file(): Promise<ConfirmationRequest> {
    const { request } = await server.gateway.request({ toolName: 'deploy_service', toolArgs: { service: 'billing' }, channels: [{ type: 'teams', target: teams.target }] });
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    return request;
  }

  const bent: Array<[string, SignOptions]> = [
    ['a forged signature', { forged: true }],
    ['another audience', { audience: 'some-other-bot' }],
    ['another issuer', { issuer: 'https://sts.windows.net/evil/' }],
    ['an expired token', { expiresInS: -3600 }],
    ['a serviceurl claim for another service', { serviceUrl: 'https://smba.evil.example/teams/' }],
    ['no Authorization header', { none: true }],
  ];

  for (const [what, sign] of bent) {
    it(`rejects a tap with ${what}: 401, nothing changes`, async () => {
      const request = await file();
      const result = await teams.press(server, request, 'Approve', 'approver1', { sign });
      expect(result.status).toBe(401);
      expect((await server.gateway.get(request.id))?.status).toBe('pending');
      expect((await server.store.events(request.id)).map((e) => e.type)).not.toContain('decision_rejected');
    });
  }

  it('does not learn a conversation from an unauthenticated conversationUpdate', async () => {
    const result = await teams.post(server, { type: 'conversationUpdate', conversation: { id: '19:spoofed@thread.tacv2' }, serviceUrl: 'https://smba.evil.example/' }, { forged: true });
    expect(result.status).toBe(401);
    expect(await teams.channel.conversations.get('19:spoofed@thread.tacv2')).toBeNull();
  });

  it('keeps no conversation of another tenant (single-tenant bot)', async () => {
    const result = await teams.post(server, { type: 'conversationUpdate', conversation: { id: '19:other@thread.tacv2', tenantId: 'another-tenant' }, channelData: { tenant: { id: 'another-tenant' } } });
    expect(result.status).toBe(200);
    expect(await teams.channel.conversations.get('19:other@thread.tacv2')).toBeNull();
  });

  it('accepts a token within the allowed clock skew', async () => {
    const request = await file();
    const result = await teams.press(server, request, 'Approve', 'approver1', { sign: { expiresInS: -60 } });
    expect(result.status).toBe(200);
    await eventually(async () => expect((await server.gateway.get(request.id))?.status).toBe('approved'));
  });
});
