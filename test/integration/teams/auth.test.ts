/**
 * The Teams messaging endpoint authenticates every activity as the Bot Framework signs it: a forged signature, another
 * bot's audience, another issuer, an expired token, a serviceurl claim for another service, or no Authorization at
 * all is a 401, and neither the request nor the conversation store changes. A genuine signature is not enough: the
 * activity must come from Teams (`channelId: "msteams"`, a key endorsed for msteams) and from the configured tenant.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { TENANT_ID, makeTeamsHarness, type PressOptions, type TeamsHarness } from '../../fakes/teams/harness.js';
import type { SignOptions } from '../../fakes/teams/fake-teams.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const OTHER_TENANT = '0b5e2a1c-0000-4000-8000-0000000e71a5';
const ELSEWHERE = '19:elsewhere@thread.tacv2';
const ACCEPTED = '19:accepted@thread.tacv2';

describe('teams: activity authentication', () => {
  let teams: TeamsHarness;
  let server: TestServer;
  let logged: Array<{ msg: string; problem?: string }> = [];

  // One fake Bot Framework and one gateway for the file (each test files a request of its own and checks only it);
  // each test sees only its own log lines.
  beforeAll(async () => {
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void logged.push(JSON.parse(line) as { msg: string }) },
    );
    teams = await makeTeamsHarness({ logger });
    server = await startTestServer({ channels: [teams.channel] });
    await teams.attach!(server);
  });
  beforeEach(() => {
    logged = [];
  });

  afterAll(async () => {
    await server.close();
    await teams.close();
  });

  async function file(): Promise<ConfirmationRequest> {
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'teams', target: teams.target }],
    });
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
    const result = await teams.post(
      server,
      {
        type: 'conversationUpdate',
        conversation: { id: '19:spoofed@thread.tacv2' },
        serviceUrl: 'https://smba.evil.example/',
      },
      { forged: true },
    );
    expect(result.status).toBe(401);
    expect(await teams.channel.conversations.get('19:spoofed@thread.tacv2')).toBeNull();
  });

  const notTeams: Array<[string, PressOptions]> = [
    [
      'channelId "webchat", signed by a key endorsed for webchat',
      { activity: { channelId: 'webchat' }, sign: { key: 'webchat' } },
    ],
    ['channelId "webchat", signed by the key endorsed for msteams', { activity: { channelId: 'webchat' } }],
    ['no channelId', { activity: { channelId: null } }],
    ['channelId "msteams", signed by a key whose endorsements lack msteams', { sign: { key: 'webchat' } }],
    ['channelId "msteams", signed by a published key without endorsements', { sign: { key: 'unendorsed' } }],
    [
      'another tenant',
      {
        activity: {
          conversation: { id: ELSEWHERE, tenantId: OTHER_TENANT },
          channelData: { tenant: { id: OTHER_TENANT } },
        },
      },
    ],
    [
      'another tenant in channelData only',
      {
        activity: {
          conversation: { id: ELSEWHERE, tenantId: TENANT_ID },
          channelData: { tenant: { id: OTHER_TENANT } },
        },
      },
    ],
    [
      'another tenant in the conversation only',
      {
        activity: {
          conversation: { id: ELSEWHERE, tenantId: OTHER_TENANT },
          channelData: { tenant: { id: TENANT_ID } },
        },
      },
    ],
    ['no tenant', { activity: { conversation: { id: ELSEWHERE }, channelData: {} } }],
  ];

  for (const [what, options] of notTeams) {
    it(`rejects a validly signed tap with ${what}: 401, a log line, nothing recorded`, async () => {
      const request = await file();
      const result = await teams.press(server, request, 'Approve', 'aad-mallory', options);
      expect(result.status).toBe(401);
      expect((await server.gateway.get(request.id))?.status).toBe('pending');
      expect((await server.store.events(request.id)).map((e) => e.type)).toEqual(['created', 'delivered']);
      expect(await teams.channel.conversations.get(ELSEWHERE)).toBeNull();
      expect(logged).toContainEqual(
        expect.objectContaining({ msg: 'teams activity rejected', problem: expect.any(String) }),
      );
    });
  }

  const notStored: Array<[string, Record<string, unknown>, SignOptions?]> = [
    [
      'another tenant',
      { conversation: { id: ELSEWHERE, tenantId: OTHER_TENANT }, channelData: { tenant: { id: OTHER_TENANT } } },
    ],
    ['no tenant', { conversation: { id: ELSEWHERE } }],
    [
      'channelId "webchat"',
      {
        channelId: 'webchat',
        conversation: { id: ELSEWHERE, tenantId: TENANT_ID },
        channelData: { tenant: { id: TENANT_ID } },
      },
      { key: 'webchat' },
    ],
    [
      'a key not endorsed for msteams',
      { conversation: { id: ELSEWHERE, tenantId: TENANT_ID }, channelData: { tenant: { id: TENANT_ID } } },
      { key: 'unendorsed' },
    ],
  ];

  for (const [what, activity, sign] of notStored) {
    it(`keeps no conversation from a conversationUpdate with ${what} (401, a log line)`, async () => {
      const result = await teams.post(server, { type: 'conversationUpdate', ...activity }, sign);
      expect(result.status).toBe(401);
      expect(await teams.channel.conversations.get(ELSEWHERE)).toBeNull();
      expect(logged).toContainEqual(
        expect.objectContaining({ msg: 'teams activity rejected', problem: expect.any(String) }),
      );
    });
  }

  it('accepts the configured tenant given in one place only, in any letter case', async () => {
    // Another conversation than the refused ones' (ELSEWHERE), so the file's tests hold in any order on one gateway.
    const result = await teams.post(server, {
      type: 'conversationUpdate',
      conversation: { id: ACCEPTED },
      channelData: { tenant: { id: TENANT_ID.toUpperCase() } },
    });
    expect(result.status).toBe(200);
    expect(await teams.channel.conversations.get(ACCEPTED)).toMatchObject({ conversationId: ACCEPTED });
  });

  it('accepts a token within the allowed clock skew', async () => {
    const request = await file();
    const result = await teams.press(server, request, 'Approve', 'approver1', { sign: { expiresInS: -60 } });
    expect(result.status).toBe(200);
    await eventually(async () => expect((await server.gateway.get(request.id))?.status).toBe('approved'));
  });
});
