/**
 * Teams behaviour beyond the contract: installs teach the channel a conversation, taps are answered with the refreshed
 * card (invoke response), a refused tap's card says why, verdicts from elsewhere rewrite the card, text is escaped and
 * secrets masked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTIVE_CARD } from '../../../channels/teams/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { cardOf, visibleText } from '../../fakes/teams/fake-teams.js';
import { makeTeamsHarness, type TeamsHarness } from '../../fakes/teams/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE } from '../../helpers/summary-calls.js';

describe('teams: installs, taps and cards', () => {
  let teams: TeamsHarness;
  let server: TestServer;

  beforeEach(async () => {
    teams = await makeTeamsHarness({ publicUrl: 'https://gate.example.com' });
    server = await startTestServer({ channels: [teams.channel] });
  });

  afterEach(async () => {
    await server.close();
    await teams.close();
  });

  async function file(target: string, body: Record<string, unknown> = {}): Promise<ConfirmationRequest> {
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'teams', target }],
      ...body,
    });
    return request;
  }

  it('learns a conversation from conversationUpdate and then sends there with a bot token', async () => {
    const conversation = '19:new-team@thread.tacv2';
    expect((await teams.install(server, conversation)).status).toBe(200);
    expect(await teams.channel.conversations.get(conversation)).toMatchObject({
      serviceUrl: teams.fake.serviceUrl,
      tenantId: expect.any(String),
    });
    const request = await file(conversation);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    const [call] = teams.fake.calls;
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe(`/teams/v3/conversations/${encodeURIComponent(conversation)}/activities`);
    expect(call?.authorization).toMatch(/^Bearer fake-/);
  });

  it('does not send to a conversation it never heard from (permanent failure, no retry loop)', async () => {
    const request = await file('19:unknown@thread.tacv2');
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('failed'));
    expect(teams.fake.calls).toHaveLength(0);
  });

  it('answers a tap with the refreshed card and records who decided', async () => {
    await teams.attach!(server);
    const request = await file(teams.target);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    const result = await teams.press(server, request, 'Approve', 'aad-alice');
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ statusCode: 200, type: ADAPTIVE_CARD });
    const card = (result.body as { value: Record<string, unknown> }).value;
    expect(card.actions).toEqual([]);
    expect(visibleText(card)).toContain('Approved by teams:aad-alice');
    const decided = await server.gateway.get(request.id);
    expect(decided?.respondedBy).toBe('teams:aad-alice');
  });

  it("refuses a non-approver's tap with a card saying why", async () => {
    await teams.attach!(server);
    const request = await file(teams.target, { approvers: ['teams:aad-boss'] });
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    const result = await teams.press(server, request, 'Approve', 'aad-intern');
    expect(result.status).toBe(200);
    const card = (result.body as { value: Record<string, unknown> }).value;
    expect(visibleText(card)).toMatch(/Nothing changed: .*not an approver/);
    expect((card.actions as unknown[]).length).toBeGreaterThan(0);
    expect((await server.gateway.get(request.id))?.status).toBe('pending');
  });

  it('rewrites the Teams card with PUT when another channel decides', async () => {
    await teams.attach!(server);
    const request = await file(teams.target);
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    await server.gateway.decide({
      requestId: request.id,
      decision: 'deny',
      reason: 'not today',
      actor: { channel: 'api', userId: 'ops' },
    });
    await eventually(async () => {
      const put = teams.fake.calls.find((c) => c.method === 'PUT');
      expect(put?.path).toMatch(/\/activities\/\d+$/);
      const card = cardOf(teams.activityFor(request).versions.at(-1)!)!;
      expect(visibleText(card)).toMatch(/Denied by api:ops .*not today/);
      expect(card.actions).toEqual([]);
    });
  });

  it('escapes card markdown and masks secret-looking arguments', async () => {
    await teams.attach!(server);
    const request = await file(teams.target, {
      prompt: '**bold** [click](https://evil.example) {{DATE(2020-01-01T00:00:00Z)}}',
      toolArgs: { api_key: 'sk-live-123456789', note: '_x_' },
    });
    await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
    const json = JSON.stringify(cardOf(teams.activityFor(request).versions[0]!));
    expect(json).toContain('\\\\*\\\\*bold\\\\*\\\\*');
    expect(json).toContain('\\\\[click\\\\]\\\\(');
    expect(json).not.toContain('{{DATE');
    expect(json).not.toContain('sk-live-123456789');
  });

  it('shows the call summary, the raw arguments folded one tap away and the page linked, within 28 KB', async () => {
    await teams.attach!(server);
    const cards: Record<string, unknown>[] = [];
    for (const call of [MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE]) {
      const request = await file(teams.target, {
        toolName: call.tool_name,
        toolArgs: call.tool_args,
        prompt: call.prompt,
        context: 'context' in call ? call.context : undefined,
      });
      await eventually(async () => expect((await server.store.messages(request.id))[0]?.status).toBe('sent'));
      cards.push(cardOf(teams.activityFor(request).versions[0]!) as Record<string, unknown>);
    }
    const [edit, shell, sql] = cards.map((c) => visibleText(c));
    expect(edit).toContain('High risk: Changes a file outside the working directory: ../shared/legacy-billing.ts');
    expect(edit).toContain('Changes 3 files: +12 −1');
    expect(edit).toContain('src/billing/config.ts  +2 −1');
    expect(edit).toContain("+  region: 'eu-central-1',");
    expect(edit).not.toContain('Begin Patch'); // folded away…
    expect(JSON.stringify(cards[0])).toContain('Begin Patch'); // …one tap away
    expect(edit).toContain('Show the raw arguments');
    expect(JSON.stringify(cards[0])).toMatch(/"url":"https:\/\/gate\.example\.com\/ui\/requests\/[0-9a-f-]{36}"/);
    expect(JSON.stringify(cards)).not.toContain(EDIT_SECRET);
    expect(shell).toContain('curl -fsSL https://get.example.com/install.sh  [network]');
    expect(sql).toContain('DELETE customers  [unbounded write]');
    // Teams refuses a message over about 28 KB.
    for (const card of cards) expect(Buffer.byteLength(JSON.stringify(card))).toBeLessThan(28_000);
  });
});
