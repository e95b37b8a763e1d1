/**
 * Four eyes and self-approval counted by person, walked around as the issue did it — one person with a Slack account
 * and a web account — through signed Slack taps and the API, on SQLite and on PostgreSQL.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { makeSlackHarness, type SlackHarness } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

const CONFIG = `
defaults: { channels: [{ type: slack, target: C0FIN }] }
people:
  - { id: alice, name: Alice Martin, email: alice@example.com, accounts: { slack: U0ALICE, web: alice } }
  - { id: bob, accounts: { slack: U0BOB, web: bob } }
  - { id: carol, accounts: { slack: U0CAROL } }
groups:
  finance-leads: [alice, bob]
  approvers: [group:finance-leads, carol]
`;

type Json = Record<string, unknown>;

const databases: FreshDatabase[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

describe.each(['sqlite', 'postgres'] as const)('people, not accounts (%s)', (dialect) => {
  let slack: SlackHarness;
  let t: TestServer;

  beforeEach(async () => {
    slack = await makeSlackHarness();
    const dbPath =
      dialect === 'postgres' ? databases[databases.push(await freshDatabase({ migrate: true })) - 1]!.url : undefined;
    t = await startTestServer({ channels: [slack.channel], policy: CONFIG, dbPath });
  });
  afterEach(async () => {
    await t.close();
    await slack.close();
  });

  async function file(body: Json): Promise<ConfirmationRequest> {
    const res = await t.api('/v1/requests', {
      body: {
        tool_name: 'pay_invoice',
        tool_args: { amount: 1200 },
        channels: [{ type: 'slack', target: 'C0FIN' }],
        ...body,
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    return (await t.gateway.get(id))!;
  }
  const read = async (id: string) => (await (await t.api(`/v1/requests/${id}`)).json()) as Json;
  async function tokenAs(as: string): Promise<string> {
    const res = await t.api('/v1/tokens', {
      body: { name: `decide-${as.replace(/\W/g, '-')}`, scopes: ['request:decide'], as },
    });
    return ((await res.json()) as { secret: string }).secret;
  }
  const decideWith = (secret: string, id: string) =>
    fetch(`${t.url}/v1/requests/${id}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
  /**
   * Taps as Slack would, and waits for the gateway to record what the tap did (Slack is acknowledged first): an event
   * by this tapper, since the card's own delivery events may land in between and would satisfy a mere count.
   */
  const tap = async (request: ConfirmationRequest, user: string, decision: 'approve' | 'deny' = 'approve') => {
    await eventually(() => slack.messageFor(request));
    const by = async () => (await t.store.events(request.id)).filter((e) => e.actor === `slack:${user}`).length;
    const before = await by();
    expect(await slack.tap(t, request, decision, user)).toBe(200);
    await eventually(async () => expect(await by()).toBeGreaterThan(before));
  };

  it('needs two people for a quorum of two: alice from Slack and then from the web is still one', async () => {
    const request = await file({ approvers: ['slack:U0ALICE', 'web:alice', 'slack:U0BOB'], required_approvals: 2 });
    await tap(request, 'U0ALICE');
    expect(await read(request.id)).toMatchObject({ status: 'pending' });

    const second = await decideWith(await tokenAs('web:alice'), request.id);
    expect(second.status).toBe(409);
    expect(((await second.json()) as { detail: string }).detail).toContain('slack:U0ALICE');
    expect(await read(request.id)).toMatchObject({ status: 'pending' });

    await tap(request, 'U0BOB');
    expect(await read(request.id)).toMatchObject({
      status: 'approved',
      responded_by: 'slack:U0BOB',
      responded_by_person: 'bob',
    });
    const events = await t.store.events(request.id);
    expect(events.filter((e) => e.type === 'decision_rejected').map((e) => e.actor)).toEqual(['web:alice']);
    expect(events.filter((e) => e.type === 'approved').map((e) => e.detail.person)).toEqual(['alice', 'bob']);
  });

  it('refuses the requester under any of her accounts: filed for web:alice, her Slack tap is self-approval', async () => {
    const request = await file({ approvers: ['group:finance-leads'], user_id: 'web:alice' });
    await tap(request, 'U0ALICE');
    expect(await read(request.id)).toMatchObject({ status: 'pending' });
    expect((await t.store.events(request.id)).find((e) => e.type === 'decision_rejected')).toMatchObject({
      actor: 'slack:U0ALICE',
    });
    // Filed for her email address: the same person.
    const byEmail = await file({ approvers: ['group:finance-leads'], user_id: 'alice@example.com' });
    const viaToken = await decideWith(await tokenAs('person:alice'), byEmail.id);
    expect(viaToken.status).toBe(403);
    await tap(request, 'U0BOB');
    expect(await read(request.id)).toMatchObject({ status: 'approved', responded_by_person: 'bob' });
  });

  it('lets a group decide through any member account, refuses others, and filters the audit by person and group', async () => {
    const request = await file({ approvers: ['group:finance-leads'] });
    await tap(request, 'U0CAROL');
    expect(await read(request.id)).toMatchObject({ status: 'pending' });
    const asAlice = await decideWith(await tokenAs('person:alice'), request.id);
    expect(asAlice.status).toBe(200);
    expect(await read(request.id)).toMatchObject({
      status: 'approved',
      responded_by: 'person:alice',
      responded_by_person: 'alice',
    });

    const other = await file({ approvers: ['group:approvers'] });
    await tap(other, 'U0CAROL', 'deny');
    expect(await read(other.id)).toMatchObject({ status: 'denied', responded_by_person: 'carol' });

    const ids = async (query: string) =>
      ((await (await t.api(`/v1/requests?${query}`)).json()) as { items: { id: string }[] }).items.map((r) => r.id);
    expect(await ids('person=alice')).toEqual([request.id]);
    expect(await ids('person=carol')).toEqual([other.id]);
    expect((await ids('group=approvers')).sort()).toEqual([request.id, other.id].sort());
    expect(await ids('group=finance-leads')).toEqual([request.id]);
    expect((await t.api('/v1/requests?group=finanse')).status).toBe(400);
  });

  it('sends a person listed by id a direct message on the channel that knows her account', async () => {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'deploy', tool_args: {}, approvers: ['person:alice'] },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const dm = await eventually(() => {
      // Posting to a user id lands in the bot's direct-message conversation with them (D…), as on Slack.
      const message = slack.fake.allMessages().find((m) => m.channel === 'D0ALICE');
      if (!message) throw new Error('no direct message to alice yet');
      return message;
    });
    expect(JSON.stringify(dm.versions[0])).toContain(id);
    // The rule's channel still gets its card (delivered on its own, in any order); the direct message comes on top.
    await eventually(() =>
      expect(
        slack.fake
          .allMessages()
          .filter((m) => JSON.stringify(m.versions[0]).includes(id))
          .map((m) => m.channel)
          .sort(),
      ).toEqual(['C0FIN', 'D0ALICE']),
    );
    expect((await t.api('/v1/requests', { body: { tool_name: 'deploy', approvers: ['person:dave'] } })).status).toBe(
      400,
    );
  });

  it('shows the directory in force over the API', async () => {
    const people = (await (await t.api('/v1/people')).json()) as { items: Json[] };
    expect(people.items.map((p) => p.id)).toEqual(['alice', 'bob', 'carol']);
    expect(await (await t.api('/v1/people/alice')).json()).toEqual({
      id: 'alice',
      name: 'Alice Martin',
      email: 'alice@example.com',
      accounts: { slack: 'U0ALICE', web: 'alice' },
      groups: ['finance-leads', 'approvers'],
      unresolved: {},
    });
    expect((await t.api('/v1/people/dave')).status).toBe(404);
    expect(await (await t.api('/v1/groups')).json()).toEqual({
      items: [
        { id: 'finance-leads', members: ['alice', 'bob'], people: ['alice', 'bob'] },
        { id: 'approvers', members: ['group:finance-leads', 'carol'], people: ['alice', 'bob', 'carol'] },
      ],
    });
  });
});
