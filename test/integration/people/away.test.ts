/**
 * Away and delegates, on SQLite and PostgreSQL, through signed Slack taps and the web inbox: alice is away and bob
 * stands in for her. The delegate decides for the absentee and the audit names both; four eyes still count people
 * (bob is one person however many he stands for, and never approves his own or alice's own request through her);
 * a cycle of delegations is refused naming it; an escalation step skips someone away with nobody standing in.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { shortDate } from '../../../src/people/away.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { makeSlackHarness, type SlackHarness } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { visibleText, WebClient } from '../web/web-client.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

type Json = Record<string, unknown>;
const DAY = 86_400_000;
const BOB_WEB = 'bob-web-token-0123456789';

/** The config: alice away (config-given) with bob her delegate; deploys escalate to dave, then to erin. */
function config(now: number): string {
  const from = new Date(now - DAY).toISOString();
  const until = new Date(now + 3 * DAY).toISOString();
  return `
defaults: { channels: [{ type: slack, target: C0FIN }] }
people:
  - { id: alice, accounts: { slack: U0ALICE, web: alice }, away: { from: "${from}", until: "${until}", delegate: "person:bob", note: holiday } }
  - { id: bob, accounts: { slack: U0BOB, web: bob } }
  - { id: carol, accounts: { slack: U0CAROL } }
  - { id: dave, accounts: { slack: U0DAVE } }
  - { id: erin, accounts: { slack: U0ERIN } }
groups:
  leads: [alice, carol]
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["person:carol"]
    channels: [{ type: slack, target: C0OPS }]
    timeout_s: 3600
    escalate:
      - { after_s: 600, approvers: ["person:dave"] }
      - { after_s: 1800, approvers: ["person:erin", "slack:U0ALICE"] }
`;
}

const databases: FreshDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Each test walks a whole story through Slack taps, web pages and the API: more than the default 5 s on a busy machine.
describe.each(['sqlite', 'postgres'] as const)('away and delegates (%s)', { timeout: 30_000 }, (dialect) => {
  let slack: SlackHarness;
  let t: TestServer;
  let clock: ManualClock;
  let dbPath: string;
  const until = () => new Date(clock.now() + 2 * DAY);

  async function start() {
    return startTestServer({
      channels: [slack.channel, createWebChannel({ users: [{ name: 'bob', token: BOB_WEB }] })],
      clock,
      scheduler: new InProcessScheduler({ clock }),
      policy: config(clock.now()),
      dbPath,
    });
  }

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    slack = await makeSlackHarness();
    dbPath =
      dialect === 'postgres'
        ? databases[databases.push(await freshDatabase({ migrate: true })) - 1]!.url
        : join(dirs[dirs.push(mkdtempSync(join(tmpdir(), 'tollgate-away-'))) - 1]!, 'tollgate.db');
    t = await start();
  });
  afterEach(async () => {
    await t.close();
    await slack.close();
  });

  async function file(body: Json): Promise<ConfirmationRequest> {
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'pay_invoice', tool_args: { amount: 1200 }, ...body },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    // The in-process scheduler runs card deliveries on the test's clock.
    await clock.advance(0);
    return (await t.gateway.get(id))!;
  }
  const read = async (id: string) => (await (await t.api(`/v1/requests/${id}`)).json()) as Json;
  const rejected = async (id: string) =>
    (await t.store.events(id))
      .filter((e) => e.type === 'decision_rejected')
      .map((e) => ({ actor: e.actor, code: e.detail.code }));
  /** Taps as Slack would and waits for the gateway to record something by this tapper. */
  const tap = async (request: ConfirmationRequest, user: string, target?: string) => {
    await eventually(async () => {
      await clock.advance(0);
      return slack.messageFor(request, target);
    });
    const by = async () => (await t.store.events(request.id)).filter((e) => e.actor === `slack:${user}`).length;
    const before = await by();
    expect(await slack.press(t, request, 'tollgate_option_0', user, { target })).toHaveProperty('status', 200);
    await eventually(async () => {
      await clock.advance(0);
      expect(await by()).toBeGreaterThan(before);
    });
  };
  async function bobOnTheWeb(): Promise<WebClient> {
    const bob = new WebClient(t.url);
    await bob.signIn('bob', BOB_WEB);
    return bob;
  }

  it('reaches the delegate directly, and the delegate decides for the absentee: the audit names both', async () => {
    const request = await file({ approvers: ['person:alice'] });
    // bob's direct message, with the card saying whom he stands in for and until when.
    const dm = await eventually(async () => {
      await clock.advance(0);
      const message = slack.fake.allMessages().find((m) => m.channel === 'D0BOB');
      if (!message) throw new Error('no direct message to bob yet');
      return message;
    });
    const away = shortDate(new Date(clock.now() + 3 * DAY), new Date(clock.now()));
    expect(JSON.stringify(dm.versions[0])).toContain(`bob for alice (away until ${away})`);
    await tap(request, 'U0BOB', 'D0BOB');
    expect(await read(request.id)).toMatchObject({
      status: 'approved',
      responded_by: 'slack:U0BOB',
      responded_by_person: 'bob',
      on_behalf_of: 'alice',
    });
    const approved = (await t.store.events(request.id)).find((e) => e.type === 'approved')!;
    expect(approved.detail).toMatchObject({ person: 'bob', on_behalf_of: 'alice' });
    // The export names both; so does the audit query by person.
    const ndjson = await (await t.api(`/v1/requests/export?format=ndjson`)).text();
    expect(
      JSON.parse(
        ndjson
          .trim()
          .split('\n')
          .find((l) => l.includes(request.id))!,
      ),
    ).toMatchObject({ responded_by_person: 'bob', on_behalf_of: 'alice' });
    const csv = await (await t.api(`/v1/requests/export?format=csv`)).text();
    expect(csv.split('\n')[0]).toContain('responded_by_person,on_behalf_of');
    expect(csv.split('\n').find((l) => l.startsWith(request.id))).toContain(',bob,alice,');
    const ids = async (query: string) =>
      ((await (await t.api(`/v1/requests?${query}`)).json()) as { items: { id: string }[] }).items.map((r) => r.id);
    expect(await ids('person=bob')).toEqual([request.id]);

    // From the web inbox as well: the request waiting for alice waits for bob, and his decision is for her.
    const second = await file({ approvers: ['group:leads'], tool_args: { amount: 80 } });
    const bob = await bobOnTheWeb();
    const inbox = await bob.request('/ui?view=waiting');
    expect(inbox.text).toContain(second.id);
    expect(visibleText(inbox.text)).toContain('bob for alice (away until');
    await bob.decide(second.id, { decision: 'deny', reason: 'not this week' });
    expect(await read(second.id)).toMatchObject({
      status: 'denied',
      responded_by: 'web:bob',
      responded_by_person: 'bob',
      on_behalf_of: 'alice',
      responded_via: 'web',
    });
    // The audit page shows both names.
    expect(visibleText((await bob.request('/ui/audit')).text)).toContain('for alice');
    // And `tollgate audit`, straight from the database, on both stores.
    const cli = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'audit', '--db', dbPath, '--person', 'bob'],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout.split('\n')[0]).toContain('on_behalf_of');
    expect(cli.stdout.split('\n').find((l) => l.includes(request.id))).toMatch(/slack:U0BOB\s+bob\s+alice/);
  });

  it('counts the delegate once: a quorum of two with alice away and bob her delegate needs a second person', async () => {
    const request = await file({ approvers: ['person:alice', 'person:bob', 'person:carol'], required_approvals: 2 });
    await tap(request, 'U0BOB');
    expect(await read(request.id)).toMatchObject({ status: 'pending' });
    // bob again, from the web, as alice's delegate: the same person, not a second approval.
    const bob = await bobOnTheWeb();
    await bob.decide(request.id, { decision: 'approve' });
    expect(await read(request.id)).toMatchObject({ status: 'pending' });
    expect(await rejected(request.id)).toEqual([{ actor: 'web:bob', code: 'duplicate_approval' }]);
    await tap(request, 'U0CAROL');
    expect(await read(request.id)).toMatchObject({
      status: 'approved',
      responded_by_person: 'carol',
      on_behalf_of: null,
    });

    // Listed only through alice: his vote for her counts once, and a second person completes it.
    const forAlice = await file({ approvers: ['person:alice', 'person:carol'], required_approvals: 2 });
    await tap(forAlice, 'U0BOB');
    await bob.decide(forAlice.id, { decision: 'approve' });
    expect(await read(forAlice.id)).toMatchObject({ status: 'pending' });
    expect((await t.store.events(forAlice.id)).filter((e) => e.type === 'approved').map((e) => e.detail)).toMatchObject(
      [{ person: 'bob', on_behalf_of: 'alice', approvals: 1 }],
    );
    await tap(forAlice, 'U0CAROL');
    expect(await read(forAlice.id)).toMatchObject({ status: 'approved', responded_by_person: 'carol' });
  });

  it('never lets anyone approve their own request through a delegation', async () => {
    // bob filed it: standing in for alice does not make it someone else's approval.
    const bobs = await file({ approvers: ['person:alice'], user_id: 'slack:U0BOB' });
    await tap(bobs, 'U0BOB');
    expect(await read(bobs.id)).toMatchObject({ status: 'pending' });
    expect(await rejected(bobs.id)).toEqual([{ actor: 'slack:U0BOB', code: 'self_approval' }]);
    // alice filed it: bob, standing in for her, may not approve it for her either.
    const alices = await file({ approvers: ['group:leads'], user_id: 'web:alice' });
    await tap(alices, 'U0BOB');
    expect(await read(alices.id)).toMatchObject({ status: 'pending' });
    const refusal = (await t.store.events(alices.id)).find((e) => e.type === 'decision_rejected')!;
    expect(refusal.detail).toMatchObject({ code: 'self_approval' });
    expect(String(refusal.detail.message)).toContain('stands in for alice, who filed this request');
    await tap(alices, 'U0CAROL');
    expect(await read(alices.id)).toMatchObject({ status: 'approved', responded_by_person: 'carol' });
    // Someone nobody stands in for, and not listed: not authorized.
    const carols = await file({ approvers: ['person:carol'] });
    await tap(carols, 'U0BOB');
    expect(await rejected(carols.id)).toEqual([{ actor: 'slack:U0BOB', code: 'not_authorized' }]);
  });

  it('sets, checks and clears away windows over the API, keeps them in the database and refuses a cycle naming it', async () => {
    const window = {
      from: new Date(clock.now()).toISOString(),
      until: until().toISOString(),
      delegate: 'person:alice',
    };
    const cycle = await t.api('/v1/people/bob/away', { method: 'PUT', body: window });
    expect(cycle.status).toBe(400);
    const problem = (await cycle.json()) as { detail: string; errors: { path: string; message: string }[] };
    expect(problem.errors).toEqual([
      { path: 'delegate', message: 'the delegations would form a cycle: bob → alice → bob' },
    ]);
    expect(((await (await t.api('/v1/people/bob/away')).json()) as Json).away).toBeNull();

    const bad = await t.api('/v1/people/carol/away', { method: 'PUT', body: { ...window, delegate: 'person:zed' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('delegate');
    const backwards = await t.api('/v1/people/carol/away', {
      method: 'PUT',
      body: { ...window, until: window.from, from: window.until },
    });
    expect(backwards.status).toBe(400);
    expect(((await backwards.json()) as { errors: { path: string; message: string }[] }).errors).toEqual([
      { path: 'until', message: 'until must be after from' },
    ]);

    // bob sets himself away through a decide token bound to him; an agent's token for him may not.
    const token = async (body: Json) =>
      ((await (await t.api('/v1/tokens', { body })).json()) as { secret: string }).secret;
    const asBob = await token({ name: 'bob-decides', scopes: ['request:decide'], as: 'person:bob' });
    const agentForBob = await token({ name: 'bob-agent', scopes: ['request:create'], person: 'bob' });
    const put = (secret: string, body: Json) =>
      fetch(`${t.url}/v1/people/me/away`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await put(agentForBob, { ...window, delegate: 'person:carol' })).status).toBe(403);
    const set = await put(asBob, { ...window, delegate: 'person:carol', note: 'dentist' });
    expect(set.status, await set.clone().text()).toBe(200);
    expect(await set.json()).toMatchObject({
      person: 'bob',
      source: 'database',
      set_by: 'person:bob',
      away: { delegate: 'person:carol', note: 'dentist' },
    });

    // A chain: alice → bob → carol. A request for alice now reaches carol too, and carol decides it for alice.
    const request = await file({ approvers: ['person:alice'] });
    await eventually(async () => {
      await clock.advance(0);
      expect(slack.fake.allMessages().map((m) => m.channel)).toContain('D0CAROL');
    });
    await tap(request, 'U0CAROL', 'D0CAROL');
    expect(await read(request.id)).toMatchObject({
      status: 'approved',
      responded_by_person: 'carol',
      on_behalf_of: 'alice',
    });

    // The database's windows outlive a restart; clearing alice's overrides the config file's.
    expect((await t.api('/v1/people/alice/away', { method: 'DELETE' })).status).toBe(200);
    await t.close();
    t = await start();
    const status = async (id: string) =>
      (await (await t.api(`/v1/people/${id}/away`)).json()) as Json & { history: Json[] };
    expect(await status('bob')).toMatchObject({ source: 'database', away: { delegate: 'person:carol' } });
    expect(await status('alice')).toMatchObject({
      away: null,
      source: null,
      set_by: 'api:admin',
      history: [{ away: null, set_by: 'api:admin' }],
    });
    const after = await file({ approvers: ['person:alice'] });
    await tap(after, 'U0BOB');
    expect(await rejected(after.id)).toEqual([{ actor: 'slack:U0BOB', code: 'not_authorized' }]);
  });

  it('skips, on escalation, a person away with nobody standing in, and runs the next step at once', async () => {
    // dave is away with no delegate (set at run time).
    expect(
      (
        await t.api('/v1/people/dave/away', {
          method: 'PUT',
          body: { from: new Date(clock.now()).toISOString(), until: until().toISOString() },
        })
      ).status,
    ).toBe(200);
    const { request } = await t.gateway.request({ toolName: 'deploy', toolArgs: { env: 'prod' } });
    await clock.advance(0);
    await clock.advance(600_000);
    const escalated = await eventually(async () => {
      const events = (await t.store.events(request.id)).filter((e) => e.type === 'escalated');
      expect(events).toHaveLength(2);
      return events;
    });
    expect(escalated[0]!.detail).toMatchObject({
      step: 0,
      added_approvers: [],
      skipped: [{ approver: 'person:dave' }],
    });
    expect(escalated[1]!.detail).toMatchObject({ step: 1, added_approvers: ['person:erin', 'slack:U0ALICE'] });
    expect(escalated[1]!.at.getTime()).toBe(escalated[0]!.at.getTime());
    expect((await t.gateway.get(request.id))!.approvers).toEqual(['person:carol', 'person:erin', 'slack:U0ALICE']);
    // erin gets the card directly; alice, added by an account, is away: bob, who stands in for her, gets it too.
    await eventually(async () => {
      await clock.advance(0);
      expect(slack.fake.allMessages().map((m) => m.channel)).toEqual(expect.arrayContaining(['D0ERIN', 'D0BOB']));
    });
    expect(slack.fake.allMessages().map((m) => m.channel)).not.toContain('D0DAVE');
  });
});
