/**
 * Groups in a web session signed in through a real OpenID provider (oidc-provider on 127.0.0.1) stay true (issue 49):
 * a person the directory takes out of a group is refused at once although the ID token listed that group; the groups
 * only the provider vouched for count for `web.oidc.groups_max_age_s` (on the gateway's ManualClock), then a decision
 * that needs them is refused with words asking to sign in again, and signing in again reads them afresh. A quorum
 * vote cast through such groups stops counting once they no longer hold.
 */
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDirectory } from '../../../src/people/config.js';
import { startOidcHarness, walkProvider, type OidcHarness } from '../../fakes/oidc/harness.js';
import { formValue, visibleText, WebClient } from './web-client.js';

const PEOPLE = `
people:
  - { id: alice, name: Alice Martin, email: alice@example.com }
  - { id: bob, name: Bob Stone, email: bob@example.com, accounts: { web: bob } }
  - { id: carol, name: Carol Ng, email: carol@example.com }
web:
  oidc:
    scopes: [groups]
    groups_claim: groups
`;
const YAML = `${PEOPLE}groups:\n  leads: [alice, bob]\n  payments: [alice]\n`;
const WITHOUT_BOB = `${PEOPLE}groups:\n  leads: [alice]\n  payments: [alice]\n`;

/** The provider puts bob in `leads` and `payments`, carol in `payments`. */
const ACCOUNTS = [
  { id: 'alice', email: 'alice@example.com', name: 'Alice Martin' },
  { id: 'bob', email: 'bob@example.com', name: 'Bob Stone', groups: ['leads', 'payments'] },
  { id: 'carol', email: 'carol@example.com', name: 'Carol Ng', groups: ['payments'] },
];

describe('groups of an OpenID web session', () => {
  let harness: OidcHarness;
  afterEach(async () => {
    await harness?.close();
  });

  const file = async (approvers: string[], requiredApprovals = 1) =>
    (
      await harness.server.gateway.request({
        toolName: 'pay_invoice',
        toolArgs: { amount: 10 },
        approvers,
        requiredApprovals,
        timeoutS: 3600,
      })
    ).request;
  /** The decision form's hidden fields as a page loaded now shows them (a tab left open keeps them). */
  const openPage = async (browser: WebClient, id: string) => {
    const page = await browser.request(`/ui/requests/${id}`);
    return { nonce: formValue(page.text, 'nonce'), args_sha256: formValue(page.text, 'args_sha256') };
  };

  it('refuses at once a person the directory took out of a group, although the ID token listed it', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const bob = new WebClient(harness.url);
    await walkProvider(bob, '/ui/auth/login', 'bob');
    const request = await file(['group:leads']);
    const form = await openPage(bob, request.id);

    harness.server.people.replace(loadDirectory(parse(WITHOUT_BOB) as Record<string, unknown>, 'tollgate.yaml'));
    const page = await bob.decide(request.id, { ...form, decision: 'approve' });
    expect(visibleText(page.text)).toContain('You are not an approver of this request');
    expect((await harness.server.gateway.get(request.id))?.status).toBe('pending');
    const rejected = (await harness.server.gateway.events(request.id)).filter((e) => e.type === 'decision_rejected');
    expect(rejected).toMatchObject([{ actor: 'web:bob', detail: { code: 'not_authorized' } }]);
  });

  it('counts the groups only the provider vouched for during groups_max_age_s, then asks to sign in again', async () => {
    harness = await startOidcHarness({
      accounts: ACCOUNTS,
      yaml: `${YAML.replace('groups_claim: groups', 'groups_claim: groups\n    groups_max_age_s: 600')}`,
    });
    const bob = new WebClient(harness.url);
    await walkProvider(bob, '/ui/auth/login', 'bob');
    const first = await file(['group:payments']);
    expect(visibleText((await bob.decide(first.id, { decision: 'approve' })).text)).toContain('Approved');

    const second = await file(['group:payments']);
    const form = await openPage(bob, second.id);
    await harness.clock.advance(601_000);
    // The page says why there is nothing to decide, and links to the sign-in.
    expect(visibleText((await bob.request(`/ui/requests/${second.id}`)).text)).toContain('are too old to count');
    const page = await bob.decide(second.id, { ...form, decision: 'approve' });
    expect(visibleText(page.text)).toContain('Sign in again to refresh them');
    expect((await harness.server.gateway.get(second.id))?.status).toBe('pending');
    const rejected = (await harness.server.gateway.events(second.id)).find((e) => e.type === 'decision_rejected');
    expect(rejected).toMatchObject({
      actor: 'web:bob',
      detail: { code: 'not_authorized', message: expect.stringContaining('Sign in again') },
    });

    // Signing in again reads the groups afresh.
    await walkProvider(bob, '/ui/auth/login', 'bob');
    expect(visibleText((await bob.decide(second.id, { decision: 'approve' })).text)).toContain('Approved');
    expect((await harness.server.gateway.get(second.id))?.respondedBy).toBe('web:bob');
  });

  it('stops counting a quorum vote cast through the provider’s groups once they no longer hold', async () => {
    harness = await startOidcHarness({ accounts: ACCOUNTS, yaml: YAML });
    const carol = new WebClient(harness.url);
    await walkProvider(carol, '/ui/auth/login', 'carol');
    const request = await file(['group:payments'], 2);
    expect(visibleText((await carol.decide(request.id, { decision: 'approve' })).text)).toContain(
      'more approvals are needed',
    );
    const vote = (await harness.server.gateway.events(request.id)).find((e) => e.type === 'approved')!;
    expect(vote.detail).toMatchObject({ person: 'carol', vouched_groups: ['payments'] });

    // Past the default 900 s the provider's word about carol is stale: alice's approval is the only one that counts.
    await harness.clock.advance(901_000);
    const alice = new WebClient(harness.url);
    await walkProvider(alice, '/ui/auth/login', 'alice');
    expect(visibleText((await alice.decide(request.id, { decision: 'approve' })).text)).toContain(
      'more approvals are needed',
    );
    expect((await harness.server.gateway.get(request.id))?.status).toBe('pending');
    const last = (await harness.server.gateway.events(request.id)).filter((e) => e.type === 'approved').at(-1)!;
    expect(last.detail).toMatchObject({
      person: 'alice',
      approvals: 1,
      discounted: [{ person: 'carol', reason: expect.stringContaining('no longer hold') }],
    });
  });
});
