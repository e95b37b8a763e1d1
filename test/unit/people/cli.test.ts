import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/args.js';
import { run } from '../../../src/cli/people.js';
import { NotFoundError, ValidationError } from '../../../src/api/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-people-cli-'));
const config = join(dir, 'tollgate.yaml');
writeFileSync(
  config,
  `people:
  - { id: alice, name: Alice Martin, email: alice@example.com, accounts: { slack: U0ALICE, web: alice } }
  - { id: bob, email: bob@example.com }
groups:
  finance-leads: [alice, bob]
  approvers: [group:finance-leads]
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function people(...argv: string[]): Promise<string> {
  let text = '';
  expect(await run([...argv, '--config', config], (t) => (text += t))).toBe(0);
  return text;
}

describe('tollgate people', () => {
  it('lists people with their accounts, and groups with everyone in them', async () => {
    const text = await people('list');
    expect(text).toContain('alice  Alice Martin  alice@example.com  slack:U0ALICE, web:alice');
    expect(text).toContain('bob    bob@example.com');
    expect(text).toContain('  approvers: alice, bob');
    expect(JSON.parse(await people('list', '--json'))).toMatchObject({
      people: [{ id: 'alice', groups: ['finance-leads', 'approvers'] }, { id: 'bob' }],
      groups: [{ id: 'finance-leads' }, { id: 'approvers', people: ['alice', 'bob'] }],
    });
  });

  it('shows one person, and says when there is no such person', async () => {
    expect(await people('show', 'alice')).toContain('  groups    finance-leads, approvers');
    await expect(people('show', 'dave')).rejects.toThrow(NotFoundError);
  });

  it('resolves references to the people they admit', async () => {
    expect(await people('resolve', 'group:approvers')).toBe('group:approvers → group: alice, bob\n');
    expect(await people('resolve', 'slack:U0ALICE')).toBe('slack:U0ALICE → account: alice\n');
    expect(await people('resolve', 'Bob@Example.com')).toBe('Bob@Example.com → account: bob\n');
    expect(await people('resolve', 'slack:U0EVE')).toBe(
      'slack:U0EVE → account: slack:U0EVE (an account the directory does not know: a person of its own)\n',
    );
    expect(await people('resolve', 'slack:*')).toBe('slack:* → wildcard: every slack account\n');
    await expect(people('resolve', 'group:finanse')).rejects.toThrow('group:finanse: no such group');
  });

  it('fails on a bad directory the way serve does, naming the file and the entry', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'groups:\n  leads: [zoe]\n');
    await expect(run(['list', '--config', bad], () => undefined)).rejects.toThrow(ValidationError);
    await expect(run(['list', '--config', bad], () => undefined)).rejects.toThrow(
      `${bad}: groups.leads[0]: zoe: no such person`,
    );
    await expect(run(['frobnicate', '--config', config], () => undefined)).rejects.toThrow(UsageError);
  });
});
