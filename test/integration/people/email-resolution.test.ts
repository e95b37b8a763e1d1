/**
 * People given only an email: their Slack and Feishu accounts are looked up in the background (real SDKs against the
 * fake platforms), cached with a TTL — in the database on PostgreSQL, so a second replica asks nobody — and a failed
 * look-up leaves the person usable on their other channels, saying why.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { makeFeishuHarness } from '../../fakes/feishu/harness.js';
import { makeSlackHarness, type SlackHarness } from '../../fakes/slack/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';
import { sharedRedisEnv } from '../postgres/replica-pair.js';

const CONFIG = `
defaults: { channels: [{ type: slack, target: C0OPS }] }
people:
  - { id: alice, accounts: { slack: U0ALICE } }
  - { id: bob, email: Bob@Example.com }
  - { id: carol, email: carol@example.com, accounts: { web: carol } }
  - { id: mallory, email: mallory@example.com }
`;

const BIN = fileURLToPath(new URL('../../../bin/tollgate.js', import.meta.url));
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});
let database: FreshDatabase | null = null;
afterAll(async () => {
  await database?.drop();
});

async function gateway(
  options: { clock?: ManualClock; dbPath?: string; env?: Record<string, string>; failLookups?: number } = {},
): Promise<{ t: TestServer; slack: SlackHarness }> {
  const slack = await makeSlackHarness();
  // Failures queued before the start meet the first look-ups, which the gateway runs as it starts.
  if (options.failLookups) slack.fake.failNext('users.lookupByEmail', { status: 500 }, options.failLookups);
  open.push(slack);
  slack.fake.users.set('bob@example.com', 'U0BOB');
  // Mallory's Slack account is alice's in the config: the config wins.
  slack.fake.users.set('mallory@example.com', 'U0ALICE');
  const t = await startTestServer({
    channels: [slack.channel],
    policy: CONFIG,
    clock: options.clock,
    dbPath: options.dbPath,
    env: options.env,
  });
  open.push(t);
  return { t, slack };
}
const person = async (t: TestServer, id: string) =>
  (await (await t.api(`/v1/people/${id}`)).json()) as {
    accounts: Record<string, string>;
    unresolved: Record<string, string>;
  };

describe('resolution by email', () => {
  it('matches a person given only an email to their Slack account: DMs reach them and their taps count as theirs', async () => {
    const { t, slack } = await gateway();
    await t.server.resolver.refresh();
    expect(await person(t, 'bob')).toMatchObject({ accounts: { slack: 'U0BOB' }, unresolved: {} });
    expect(await person(t, 'carol')).toMatchObject({
      accounts: { web: 'carol' },
      unresolved: { slack: 'no slack user has this email' },
    });
    expect(await person(t, 'mallory')).toMatchObject({
      accounts: {},
      unresolved: { slack: "U0ALICE is alice's account in the config" },
    });
    expect(t.gateway.directory().personOf('slack:U0ALICE')).toBe('alice');
    // `tollgate people show` without a config file asks the running gateway, which knows what the look-ups found.
    const shown = await new Promise<string>((resolve) =>
      execFile(
        process.execPath,
        [BIN, 'people', 'show', 'carol'],
        { env: { ...process.env, TOLLGATE_CONFIG: '', TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token }, timeout: 30_000 },
        (_e, stdout, stderr) => resolve(stdout + stderr),
      ),
    );
    expect(shown).toContain('  accounts  web:carol');
    expect(shown).toContain('  not found slack: no slack user has this email');

    const res = await t.api('/v1/requests', {
      body: { tool_name: 'deploy', tool_args: {}, approvers: ['person:bob'] },
    });
    const { id } = (await res.json()) as { id: string };
    await eventually(() => expect(slack.fake.allMessages().some((m) => m.channel === 'D0BOB')).toBe(true));
    const request = (await t.gateway.get(id))!;
    expect(await slack.tap(t, request, 'approve', 'U0BOB')).toBe(200);
    await eventually(async () =>
      expect(await t.gateway.get(id)).toMatchObject({
        status: 'approved',
        respondedBy: 'slack:U0BOB',
        respondedByPerson: 'bob',
      }),
    );
  });

  it('keeps a person usable when the look-up fails, says why, and tries again after a minute', async () => {
    const clock = new ManualClock();
    const { t, slack } = await gateway({ clock, failLookups: 3 }); // bob, carol and mallory's look-ups
    await t.server.resolver.refresh();
    expect((await person(t, 'bob')).unresolved.slack).toMatch(/^look-up failed: /);
    // Carol's failed look-up does not stop her deciding from the web.
    const res = await t.api('/v1/requests', {
      body: {
        tool_name: 'deploy',
        tool_args: {},
        approvers: ['person:carol'],
        channels: [{ type: 'slack', target: 'C0OPS' }],
      },
    });
    const { id } = (await res.json()) as { id: string };
    expect(
      (await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:carol' } })).status,
    ).toBe(200);

    const calls = slack.fake.callsTo('users.lookupByEmail').length;
    await t.server.resolver.refresh();
    expect(slack.fake.callsTo('users.lookupByEmail')).toHaveLength(calls); // failures are retried after a minute, not at once
    await clock.advance(61_000);
    await t.server.resolver.refresh();
    expect(await person(t, 'bob')).toMatchObject({ accounts: { slack: 'U0BOB' }, unresolved: {} });
  });

  it('trusts an answer for its TTL and asks again after it', async () => {
    const clock = new ManualClock();
    const { t, slack } = await gateway({ clock });
    await t.server.resolver.refresh();
    const calls = slack.fake.callsTo('users.lookupByEmail').length;
    expect(calls).toBe(3); // bob, carol, mallory: alice has her Slack account in the config
    await clock.advance(3600_000);
    await t.server.resolver.refresh();
    expect(slack.fake.callsTo('users.lookupByEmail')).toHaveLength(calls);
    slack.fake.users.set('bob@example.com', 'U0BOB2');
    await clock.advance(6 * 3600_000);
    await t.server.resolver.refresh();
    expect(slack.fake.callsTo('users.lookupByEmail')).toHaveLength(2 * calls);
    expect((await person(t, 'bob')).accounts.slack).toBe('U0BOB2');
    // Slack away when the answer is stale: bob keeps the account found before.
    slack.fake.failNext('users.lookupByEmail', { status: 500 }, 3);
    await clock.advance(7 * 3600_000);
    await t.server.resolver.refresh();
    expect(await person(t, 'bob')).toMatchObject({ accounts: { slack: 'U0BOB2' }, unresolved: {} });
  });

  it('shares answers between replicas on PostgreSQL: the second asks Slack nothing', async () => {
    database = await freshDatabase({ migrate: true });
    // Replicas of one database share a scheduler through Redis.
    const env = sharedRedisEnv();
    const first = await gateway({ dbPath: database.url, env });
    await first.t.server.resolver.refresh();
    expect(first.slack.fake.callsTo('users.lookupByEmail')).toHaveLength(3);
    const second = await gateway({ dbPath: database.url, env });
    await second.t.server.resolver.refresh();
    expect(second.slack.fake.callsTo('users.lookupByEmail')).toHaveLength(0);
    expect(await person(second.t, 'bob')).toMatchObject({ accounts: { slack: 'U0BOB' } });
  });

  it('looks up Feishu open ids by email through the contact API', async () => {
    const feishu = await makeFeishuHarness();
    open.push(feishu);
    feishu.fake.users.set('bob@example.com', 'ou_bob');
    expect(await feishu.channel.accountByEmail('Bob@Example.com')).toBe('ou_bob');
    expect(await feishu.channel.accountByEmail('nobody@example.com')).toBeNull();
    expect(feishu.fake.callsTo('batch_get_id').at(-1)).toMatchObject({
      query: { user_id_type: 'open_id' },
      body: { emails: ['nobody@example.com'] },
    });
  });
});
