/**
 * @module cli/people
 * `tollgate people list|show <id>|resolve <reference> [--config F] [--json]`: the people directory as `serve` loads
 * it from the config file (a bad entry fails the same way, naming the file and the entry), offline. `resolve` says
 * what an approver reference stands for: which people it admits, and whether the directory knows the account.
 */
import { loadPolicyAndPeople, readConfigFile } from '../config.js';
import { NotFoundError } from '../errors.js';
import { groupJson, personJson, resolveReference } from '../people/json.js';
import type { Directory, Person } from '../people/types.js';
import { flag, parseArgs, UsageError } from './args.js';

/** Runs `tollgate people …`; resolves with the exit code. */
export async function run(argv: string[], out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const [sub, ...rest] = argv;
  const args = parseArgs(rest, ['json']);
  const configPath = flag(args, 'config') || process.env.TOLLGATE_CONFIG;
  if (!configPath) throw new UsageError('--config: no config file (pass --config FILE or set TOLLGATE_CONFIG)');
  const json = flag(args, 'json') === 'true';
  const print = (value: unknown, text: string[]) => out(`${json ? JSON.stringify(value) : text.join('\n')}\n`);
  const { directory } = loadPolicyAndPeople(readConfigFile(configPath), configPath);
  const [operand] = args.positionals;
  if (sub === 'list') {
    const people = directory.people().map((p) => personJson(directory, p));
    const groups = directory.groups().map(groupJson);
    if (!people.length && !groups.length) return print({ people, groups }, [`${configPath} has no people: or groups:`]), 0;
    const width = Math.max(...people.map((p) => p.id.length), 2);
    print({ people, groups }, [
      ...people.map((p) => `${p.id.padEnd(width)}  ${[p.name, p.email, accountsText(p.accounts)].filter(Boolean).join('  ')}`),
      ...(groups.length ? ['', 'Groups:', ...groups.map((g) => `  ${g.id}: ${g.people.join(', ') || '(nobody)'}`)] : []),
    ]);
    return 0;
  }
  if (sub === 'show') {
    if (!operand) throw new UsageError('say whom: tollgate people show <id>');
    const person = directory.person(operand);
    if (!person) throw new NotFoundError(`no person with id ${operand} in ${configPath}`);
    print(personJson(directory, person), showText(directory, person));
    return 0;
  }
  if (sub === 'resolve') {
    if (!operand) throw new UsageError('say what: tollgate people resolve <reference> (person:alice, group:leads, slack:U0…, an email)');
    const resolved = resolveReference(directory, operand);
    if (!resolved) throw new NotFoundError(`${operand}: no such ${operand.startsWith('group:') ? 'group' : 'person'} in ${configPath}`);
    const who = resolved.people === null ? `every ${resolved.channel} account` : resolved.people.join(', ') || 'nobody';
    const note = 'known' in resolved && !resolved.known ? ' (an account the directory does not know: a person of its own)' : '';
    print(resolved, [`${operand} → ${resolved.kind}: ${who}${note}`]);
    return 0;
  }
  throw new UsageError(sub ? `unknown subcommand "${sub}" (list, show or resolve)` : 'say what to do: tollgate people list|show <id>|resolve <reference>');
}

function accountsText(accounts: Record<string, string>): string {
  return Object.entries(accounts)
    .map(([channel, account]) => `${channel}:${account}`)
    .join(', ');
}

function showText(directory: Directory, person: Person): string[] {
  return [
    `${person.id}${person.name ? ` (${person.name})` : ''}`,
    `  email     ${person.email ?? '-'}`,
    `  accounts  ${accountsText(person.accounts) || '-'}`,
    `  groups    ${directory.groupsOf(person.id).join(', ') || '-'}`,
  ];
}
