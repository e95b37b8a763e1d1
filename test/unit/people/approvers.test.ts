import { describe, expect, it } from 'vitest';
import { approverSetOf, deciderOf, isListed, requesterPeople } from '../../../src/people/approvers.js';
import { NO_DIRECTORY } from '../../../src/people/no-directory.js';
import type { Directory } from '../../../src/people/types.js';
import { checkDecision } from '../../../src/people/decision-checks.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import { newRequest } from '../../contracts/store-fixtures.js';

/** Alice has a Slack and a web account and leads finance; bob is in finance-leads; nobody else is known. */
const accounts: Record<string, string> = {
  'slack:U_ALICE': 'alice',
  'web:alice': 'alice',
  'email:alice@example.com': 'alice',
  'slack:U_BOB': 'bob',
};
const groups: Record<string, string[]> = { alice: ['finance-leads'], bob: ['finance-leads'] };
const directory: Directory = {
  ...NO_DIRECTORY,
  personOf: (account) => accounts[account] ?? account,
  groupsOf: (person) => groups[person] ?? [],
  reference(ref) {
    if (ref === 'person:alice' || ref === 'person:bob') return { kind: 'person', id: ref.slice(7) };
    if (ref === 'group:finance-leads') return { kind: 'group', id: 'finance-leads' };
    return NO_DIRECTORY.reference(ref);
  },
};

const decide = (request: ConfirmationRequest, account: string, decision: 'approve' | 'deny' = 'approve') =>
  checkDecision(
    request,
    { requestId: request.id, decision, actor: { channel: account.split(':')[0]!, userId: account.split(':')[1]! } },
    {
      decider: deciderOf(directory, account),
      approvers: approverSetOf(directory, request.approvers),
      requesters: requesterPeople(directory, request),
    },
    false,
  );

describe('approvers by person', () => {
  it('admits every account of a listed person, whichever account the list names', () => {
    const listed = approverSetOf(directory, ['slack:U_ALICE']);
    expect(isListed(listed, deciderOf(directory, 'web:alice'))).toBe(true);
    expect(isListed(listed, deciderOf(directory, 'slack:U_BOB'))).toBe(false);
    expect(isListed(approverSetOf(directory, ['person:alice']), deciderOf(directory, 'slack:U_ALICE'))).toBe(true);
    expect(isListed(approverSetOf(directory, ['Alice@Example.com']), deciderOf(directory, 'web:alice'))).toBe(true);
  });

  it('admits the members of a listed group, and an unknown account only as written', () => {
    const set = approverSetOf(directory, ['group:finance-leads', 'feishu:ou_x']);
    expect(isListed(set, deciderOf(directory, 'slack:U_BOB'))).toBe(true);
    expect(isListed(set, deciderOf(directory, 'feishu:ou_x'))).toBe(true);
    expect(isListed(set, deciderOf(directory, 'feishu:ou_y'))).toBe(false);
  });

  it('keeps channel wildcards and empty lists as before', () => {
    expect(isListed(approverSetOf(directory, ['slack:*']), deciderOf(directory, 'slack:U9'))).toBe(true);
    expect(isListed(approverSetOf(directory, ['slack:*']), deciderOf(directory, 'web:U9'))).toBe(false);
    expect(isListed(approverSetOf(directory, []), deciderOf(directory, 'web:anyone'))).toBe(true);
    expect(isListed(approverSetOf(directory, ['person:nobody']), deciderOf(directory, 'web:nobody'))).toBe(false);
  });

  it('refuses self-approval from any account of the requester, but lets them deny', () => {
    const request = newRequest({ userId: 'web:alice', approvers: ['slack:U_ALICE', 'slack:U_BOB'] });
    expect(decide(request, 'slack:U_ALICE')).toEqual({ code: 'self_approval' });
    expect(decide(request, 'web:alice')).toEqual({ code: 'self_approval' });
    expect(decide(request, 'slack:U_ALICE', 'deny')).toBeNull();
    expect(decide(request, 'slack:U_BOB')).toBeNull();
  });

  it("refuses self-approval by the filing token's person, and by a user_id written without its channel", () => {
    expect(decide({ ...newRequest(), filedByPerson: 'bob' }, 'slack:U_BOB')).toEqual({ code: 'self_approval' });
    expect(decide(newRequest({ userId: 'U7' }), 'slack:U7')).toEqual({ code: 'self_approval' });
    expect(decide(newRequest({ userId: 'person:bob' }), 'slack:U_BOB')).toEqual({ code: 'self_approval' });
    expect(decide(newRequest({ approvers: ['slack:U_BOB'] }), 'web:alice')).toEqual({ code: 'not_authorized' });
  });
});
