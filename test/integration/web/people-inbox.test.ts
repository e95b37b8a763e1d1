/**
 * The people-aware inbox after an OpenID sign-in: "waiting for me" (listed as a person, through a directory group, a
 * group the provider's groups claim vouches for, or one of my accounts; not once I voted), "I decided", "filed for me",
 * the count in the tab title, key arguments and the prompt's markdown on each entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOidcHarness, walkProvider, type OidcHarness } from '../../fakes/oidc/harness.js';
import { visibleText, WebClient } from './web-client.js';

const YAML = `
people:
  - { id: alice, name: Alice Martin, email: alice@example.com, accounts: { slack: U0ALICE } }
  - { id: bob, name: Bob Stone, email: bob@example.com }
  - { id: carol, email: carol@example.com }
groups:
  finance-leads: [alice]
  payments: [carol]
web:
  oidc:
    scopes: [groups]
    groups_claim: groups
`;

const ACCOUNTS = [
  { id: 'alice', email: 'alice@example.com', name: 'Alice Martin' },
  { id: 'bob', email: 'bob@example.com', name: 'Bob Stone', groups: ['payments', 'not-a-directory-group'] },
];

const ids = (html: string) => [...html.matchAll(/data-request-id="([^"]+)"/g)].map((m) => m[1]);
const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)![1];

describe('people-aware inbox', () => {
  let harness: OidcHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('shows each person what waits for them, what they decided and what was filed for them', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const { gateway } = harness.server;
    const file = async (input: Parameters<typeof gateway.request>[0]) =>
      (await gateway.request({ timeoutS: 600, ...input })).request;
    const byPerson = await file({
      toolName: 'Bash',
      toolArgs: { command: 'rm -rf /tmp/build', api_key: 'sk-live-123' },
      approvers: ['person:alice'],
    });
    const byGroup = await file({
      toolName: 'pay_invoice',
      toolArgs: { amount: 1200, payee: 'ACME GmbH', note: 'x'.repeat(500) },
      approvers: ['group:finance-leads'],
      prompt: 'Pay **ACME** for `INV-7`?',
    });
    const byAccount = await file({ toolName: 'deploy', approvers: ['slack:U0ALICE'] });
    const byClaim = await file({ toolName: 'refund', toolArgs: { amount: 30 }, approvers: ['group:payments'] });
    const forAlice = await file({ toolName: 'read_mail', userId: 'alice@example.com', approvers: ['person:bob'] });

    const alice = new WebClient(harness.url);
    const { page } = await walkProvider(alice, '/ui/auth/login', 'alice');
    expect(ids(page.text).sort()).toEqual([byPerson.id, byGroup.id, byAccount.id].sort());
    expect(title(page.text)).toBe('(3) Inbox · tollgate');
    const text = visibleText(page.text);
    // A shell call is shown by its summary (the command it runs, and its risk), never the secret beside it.
    expect(text).toContain('rm -rf /tmp/build');
    expect(text).not.toContain('sk-live-123');
    expect(text).toContain('amount 1200 payee ACME GmbH');
    expect(text).not.toContain('x'.repeat(200));
    // Markdown rendered, safely: code and bold become markup, nothing else does.
    expect(page.text).toContain('Pay <strong>ACME</strong> for <code>INV-7</code>?');
    expect(page.text).toContain('The agent wants to run <code>Bash</code>.');

    const bob = new WebClient(harness.url);
    const bobInbox = (await walkProvider(bob, '/ui/auth/login', 'bob')).page;
    // The provider says bob is in payments: the directory group of that name counts him in.
    expect(ids(bobInbox.text).sort()).toEqual([byClaim.id, forAlice.id].sort());
    await bob.decide(byClaim.id, { decision: 'approve' });
    expect((await gateway.get(byClaim.id))?.respondedBy).toBe('person:bob');
    await bob.decide(forAlice.id, { decision: 'deny', reason: 'not now' });
    const bobAfter = await bob.request('/ui');
    expect(ids(bobAfter.text)).toEqual([]);
    expect(title(bobAfter.text)).toBe('Inbox · tollgate');
    expect(ids((await bob.request('/ui?view=decided')).text).sort()).toEqual([byClaim.id, forAlice.id].sort());

    expect(ids((await alice.request('/ui?view=filed')).text)).toEqual([forAlice.id]);
    expect(ids((await alice.request('/ui?view=decided')).text)).toEqual([]);
    await alice.decide(byPerson.id, { decision: 'approve', reason: 'build dir only' });
    // The timeline in sentences, not raw detail.
    const timeline = visibleText(
      /<section class="card" id="timeline"[\s\S]*?<\/section>/.exec(
        (await alice.request(`/ui/requests/${byPerson.id}`)).text,
      )![0],
    );
    expect(timeline).toContain('Filed; policy rule default asked for a decision.');
    expect(timeline).toContain('Shown in the web inbox.');
    expect(timeline).toContain('Approved by person:alice through web: “build dir only”.');
    expect(timeline).not.toMatch(/attempt|\{"rule"/);
    expect(ids((await alice.request('/ui')).text).sort()).toEqual([byGroup.id, byAccount.id].sort());
    expect(ids((await alice.request('/ui?view=decided')).text)).toEqual([byPerson.id]);
    expect(ids((await alice.request('/ui?view=all')).text).sort()).toEqual([byGroup.id, byAccount.id].sort());
  });
});
