import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { ValidationError } from '../../../src/api/errors.js';
import { loadDirectory } from '../../../src/people/config.js';
import { NO_DIRECTORY } from '../../../src/people/no-directory.js';
import { PeopleSource } from '../../../src/people/source.js';
import { PolicyGate } from '../../../src/policy/gate.js';
import { emptyPolicy } from '../../../src/policy/index.js';
import { watchPolicy } from '../../../src/gateway/policy-reload.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-people-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ValidationError `sections` give, as "path: message" lines. */
function problems(sections: Record<string, unknown>): string[] {
  try {
    loadDirectory(sections, 'tollgate.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return ((error as ValidationError).errors ?? []).map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a ValidationError');
}

describe('the people directory from the config file', () => {
  it('is the empty directory when the file has neither people: nor groups:', () => {
    expect(loadDirectory({}, 'tollgate.yaml')).toBe(NO_DIRECTORY);
  });

  it('names the file, the entry and what is wrong for each bad person', () => {
    expect(
      problems({
        people: [
          { id: 'alice', accounts: { slack: 'U0ALICE' } },
          { id: 'Alice B' },
          { id: 'alice' },
          { id: 'bob', accounts: { slack: 'U0ALICE' }, email: 'not-an-address' },
          { id: 'carol', colour: 'red' },
        ],
      }),
    ).toEqual([
      'tollgate.yaml: people[1] "Alice B".id: use lower-case letters, digits, ".", "_" and "-"',
      'tollgate.yaml: people[2] "alice".id: the id is used by people[0] too; ids must be unique',
      'tollgate.yaml: people[3] "bob".email: Invalid email address',
      'tollgate.yaml: people[4] "carol": unknown field(s): colour',
    ]);
    expect(
      problems({
        people: [
          { id: 'alice', accounts: { slack: 'U0ALICE' } },
          { id: 'bob', accounts: { slack: 'U0ALICE' } },
        ],
      }),
    ).toEqual(['tollgate.yaml: people[1] "bob".accounts.slack: U0ALICE is also the account of people[0] "alice"']);
    expect(
      problems({
        people: [
          { id: 'alice', email: 'a@x.io' },
          { id: 'bob', email: 'A@X.io' },
        ],
      }),
    ).toEqual(['tollgate.yaml: people[1] "bob".email: A@X.io is also the account of people[0] "alice"']);
    expect(problems({ people: { alice: {} } })).toEqual(['tollgate.yaml: people: expected a list of people']);
  });

  it('names a group member that does not exist, and a cycle by the group where it starts', () => {
    expect(problems({ people: [{ id: 'alice' }], groups: { leads: ['alice', 'bob', 'group:finanse'] } })).toEqual([
      'tollgate.yaml: groups.leads[1]: bob: no such person in people: (write group:<id> for a group)',
      'tollgate.yaml: groups.leads[2]: group:finanse: no such group',
    ]);
    expect(
      problems({ people: [{ id: 'alice' }], groups: { a: ['alice', 'group:b'], b: ['group:c'], c: ['group:a'] } }),
    ).toEqual(['tollgate.yaml: groups.a: the group contains itself: a → b → c → a']);
    expect(problems({ groups: { me: ['group:me'] } })).toEqual([
      'tollgate.yaml: groups.me: the group contains itself: me → me',
    ]);
  });

  it('stops the start when a policy names a person or group the directory lacks, naming the rule', () => {
    const path = join(dir, 'unknown.yaml');
    writeFileSync(
      path,
      'people:\n  - { id: alice }\npolicies:\n  - { name: pay, match: { tool: pay }, approvers: ["person:alice", "group:finance"] }\n',
    );
    expect(() => loadConfig({ config: path }, {})).toThrow(
      `${path}: policies.pay.approvers[1]: group:finance: no such group in the people directory`,
    );
  });

  it('reloads with the policy; a file whose policy names an unknown person keeps both as they were', () => {
    const path = join(dir, 'reload.yaml');
    writeFileSync(path, 'people:\n  - { id: alice, accounts: { slack: U0ALICE } }\n');
    const config = loadConfig({ config: path }, {});
    const people = new PeopleSource(config.directory);
    const gate = new PolicyGate(emptyPolicy());
    const logs: string[] = [];
    const logger = {
      info: (obj: { changes?: string[] }, msg: string) =>
        logs.push(obj.changes ? `${msg}: ${obj.changes.join('; ')}` : msg),
      error: (obj: { err: string }, msg: string) => logs.push(`${msg}: ${obj.err}`),
    };
    const stop = watchPolicy({ gate, people, path, logger: logger as never, pollMs: 0 });
    try {
      expect(people.current().personOf('slack:U0BOB')).toBe('slack:U0BOB');
      writeFileSync(
        path,
        'people:\n  - { id: alice, accounts: { slack: U0ALICE } }\n  - { id: bob, accounts: { slack: U0BOB } }\ngroups: { leads: [alice, bob] }\n',
      );
      process.emit('SIGHUP', 'SIGHUP');
      expect(people.current().personOf('slack:U0BOB')).toBe('bob');
      expect(people.current().group('leads')?.people).toEqual(['alice', 'bob']);
      expect(logs).toContain('people directory changed: person bob added; group leads added: alice, bob');
      writeFileSync(
        path,
        'people:\n  - { id: alice, accounts: { slack: U0ALICE2 } }\n  - { id: bob, accounts: { slack: U0BOB } }\ngroups: { leads: [bob] }\n',
      );
      process.emit('SIGHUP', 'SIGHUP');
      expect(logs).toContain(
        'people directory changed: person alice: accounts slack:U0ALICE → slack:U0ALICE2; group leads: -alice',
      );

      writeFileSync(
        path,
        'people:\n  - { id: alice }\npolicies:\n  - { name: pay, match: { tool: pay }, approvers: ["person:bob"] }\n',
      );
      process.emit('SIGHUP', 'SIGHUP');
      expect(people.current().personOf('slack:U0BOB')).toBe('bob');
      expect(gate.policy.rules).toEqual([]);
      expect(logs.at(-1)).toContain('policies.pay.approvers[0]: person:bob: no such person in the people directory');
    } finally {
      stop();
    }
  });
});
