/**
 * The people directory contract suite. Every `Directory` implementation runs it with a factory that builds the
 * directory from the same `people:` / `groups:` sections:
 *
 * ```ts
 * runDirectoryContract('config file', (sections) => loadDirectory(sections, 'tollgate.yaml'));
 * ```
 */
import { describe, expect, it } from 'vitest';
import type { DirectorySections } from '../../src/people/config.js';
import type { Directory } from '../../src/people/types.js';

/** Alice has three accounts and an email; bob only an email; carol is in a nested group. */
export const DIRECTORY_SECTIONS: DirectorySections = {
  people: [
    {
      id: 'alice',
      name: 'Alice Martin',
      email: 'Alice@Example.com',
      accounts: { slack: 'U0ALICE', web: 'alice', feishu: 'ou_alice' },
    },
    { id: 'bob', email: 'bob@example.com' },
    { id: 'carol', accounts: { telegram: 1234 } },
  ],
  groups: {
    'finance-leads': ['alice', 'bob'],
    approvers: ['group:finance-leads', 'carol'],
    auditors: ['carol'],
  },
};

/** Runs the contract against `make`. */
export function runDirectoryContract(
  name: string,
  make: (sections: DirectorySections) => Directory | Promise<Directory>,
): void {
  describe(`directory contract: ${name}`, () => {
    it('lists people and groups in configuration order, with their fields', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      expect(d.people().map((p) => p.id)).toEqual(['alice', 'bob', 'carol']);
      expect(d.person('alice')).toMatchObject({
        id: 'alice',
        name: 'Alice Martin',
        email: 'Alice@Example.com',
        accounts: { slack: 'U0ALICE', web: 'alice', feishu: 'ou_alice' },
      });
      expect(d.person('bob')).toMatchObject({ name: null, email: 'bob@example.com' });
      expect(d.person('carol')?.accounts).toMatchObject({ telegram: '1234' });
      expect(d.person('dave')).toBeNull();
      expect(d.groups().map((g) => g.id)).toEqual(['finance-leads', 'approvers', 'auditors']);
    });

    it('resolves every account of a person, and an email in any case, to that person', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      for (const account of [
        'slack:U0ALICE',
        'web:alice',
        'feishu:ou_alice',
        'email:alice@example.com',
        'email:ALICE@example.COM',
        'alice@example.com',
      ]) {
        expect(d.personOf(account), account).toBe('alice');
      }
      expect(d.personOf('email:bob@example.com')).toBe('bob');
      expect(d.personOf('telegram:1234')).toBe('carol');
    });

    it('answers who holds an account id written without its channel (a bare user_id)', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      expect(d.holdersOf('U0ALICE')).toEqual(['alice']);
      expect(d.holdersOf('1234')).toEqual(['carol']);
      expect(d.holdersOf('U0STRANGER')).toEqual([]);
    });

    it('treats an account it does not know as a person of its own', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      expect(d.personOf('slack:U0STRANGER')).toBe('slack:U0STRANGER');
      expect(d.personOf('web:bob')).toBe('web:bob');
      expect(d.groupsOf('slack:U0STRANGER')).toEqual([]);
    });

    it('flattens nested groups, each person once, and answers the groups a person is in', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      expect(d.group('approvers')).toEqual({
        id: 'approvers',
        members: ['group:finance-leads', 'carol'],
        people: ['alice', 'bob', 'carol'],
      });
      expect([...d.groupsOf('alice')].sort()).toEqual(['approvers', 'finance-leads']);
      expect([...d.groupsOf('carol')].sort()).toEqual(['approvers', 'auditors']);
      expect(d.group('nobody')).toBeNull();
    });

    it('parses references: known people and groups, accounts, emails and wildcards; null for unknown ids', async () => {
      const d = await make(DIRECTORY_SECTIONS);
      expect(d.reference('person:alice')).toEqual({ kind: 'person', id: 'alice' });
      expect(d.reference('group:approvers')).toEqual({ kind: 'group', id: 'approvers' });
      expect(d.reference('slack:U0ALICE')).toEqual({ kind: 'account', account: 'slack:U0ALICE' });
      expect(d.reference('Bob@Example.com')).toEqual({ kind: 'account', account: 'email:bob@example.com' });
      expect(d.reference('slack:*')).toEqual({ kind: 'wildcard', channel: 'slack' });
      expect(d.reference('person:dave')).toBeNull();
      expect(d.reference('group:finanse')).toBeNull();
    });
  });
}
