/**
 * @module cli/people
 * `tollgate people list|show <id>|resolve <reference> [--config F] [--json]`: the people directory as `serve` loads
 * it from the config file (a bad entry fails the same way, naming the file and the entry), offline; `show` without a
 * config file asks the running gateway (`TOLLGATE_URL`, `TOLLGATE_TOKEN`), which adds what email look-ups found. `resolve` says
 * what an approver reference stands for: which people it admits, and whether the directory knows the account.
 */
import { loadPolicyAndPeople, readConfigFile } from '../config.js';
import { NotFoundError } from '../api/errors.js';
import { groupJson, personJson, resolveReference } from '../people/json.js';
import type { Directory, Person } from '../people/types.js';
import { flag, parseArgs, UsageError } from './args.js';
import { findConfigFile } from './config-file.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';
import { remoteFrom } from './remote.js';

/** Runs `tollgate people …`; resolves with the exit code. */
export async function run(
  argv: string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const [sub, ...rest] = argv;
  const args = parseArgs(rest, { values: ['config'], booleans: ['json'] });
  const json = flag(args, 'json') === 'true';
  // Names, emails and look-up answers come from config files, identity providers and platforms: printed terminal-safe.
  const print = (value: unknown, text: string[]) =>
    out(`${json ? terminalJson(JSON.stringify(value)) : terminalText(text.join('\n'))}\n`);
  const [operand] = args.positionals;
  const configPath = findConfigFile(flag(args, 'config')).path;
  // Without a config file, `show` asks the running gateway: it also knows the accounts looked up from emails, and why
  // a look-up found nobody.
  if (!configPath && sub === 'show' && operand && process.env.TOLLGATE_TOKEN) {
    const person = await remoteFrom(process.env, 'a token with audit:read').call<ReturnType<typeof personJson>>(
      'GET',
      `/v1/people/${encodeURIComponent(operand)}`,
    );
    print(person, remoteShowText(person));
    return 0;
  }
  if (!configPath)
    throw new UsageError(
      '--config: no config file (pass --config FILE, set TOLLGATE_CONFIG or add ./tollgate.yaml; for show, TOLLGATE_URL and TOLLGATE_TOKEN ask the running gateway)',
    );
  const { directory } = loadPolicyAndPeople(readConfigFile(configPath), configPath);
  if (sub === 'list') {
    const people = directory.people().map((p) => personJson(directory, p));
    const groups = directory.groups().map(groupJson);
    if (!people.length && !groups.length)
      return (print({ people, groups }, [`${configPath} has no people: or groups:`]), 0);
    const width = Math.max(...people.map((p) => p.id.length), 2);
    print({ people, groups }, [
      ...people.map(
        (p) => `${p.id.padEnd(width)}  ${[p.name, p.email, accountsText(p.accounts)].filter(Boolean).join('  ')}`,
      ),
      ...(groups.length
        ? ['', 'Groups:', ...groups.map((g) => `  ${g.id}: ${g.people.join(', ') || '(nobody)'}`)]
        : []),
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
    if (!operand)
      throw new UsageError(
        'say what: tollgate people resolve <reference> (person:alice, group:leads, slack:U0…, an email)',
      );
    const resolved = resolveReference(directory, operand);
    if (!resolved)
      throw new NotFoundError(
        `${operand}: no such ${operand.startsWith('group:') ? 'group' : 'person'} in ${configPath}`,
      );
    const who = resolved.people === null ? `every ${resolved.channel} account` : resolved.people.join(', ') || 'nobody';
    const note =
      'known' in resolved && !resolved.known ? ' (an account the directory does not know: a person of its own)' : '';
    print(resolved, [`${operand} → ${resolved.kind}: ${who}${note}`]);
    return 0;
  }
  throw new UsageError(
    sub
      ? `unknown subcommand "${sub}" (list, show or resolve)`
      : 'say what to do: tollgate people list|show <id>|resolve <reference>',
  );
}

function accountsText(accounts: Record<string, string>): string {
  return Object.entries(accounts)
    .map(([channel, account]) => `${channel}:${account}`)
    .join(', ');
}

/** `show` as the running gateway answers it: with the accounts looked up from the email, and what was not found. */
function remoteShowText(person: ReturnType<typeof personJson>): string[] {
  const unresolved = Object.entries(person.unresolved).map(([channel, why]) => `${channel}: ${why}`);
  return [
    `${person.id}${person.name ? ` (${person.name})` : ''}`,
    `  email     ${person.email ?? '-'}`,
    `  accounts  ${accountsText(person.accounts) || '-'}`,
    `  groups    ${person.groups.join(', ') || '-'}`,
    ...(unresolved.length ? [`  not found ${unresolved.join('; ')}`] : []),
  ];
}

function showText(directory: Directory, person: Person): string[] {
  return [
    `${person.id}${person.name ? ` (${person.name})` : ''}`,
    `  email     ${person.email ?? '-'}`,
    `  accounts  ${accountsText(person.accounts) || '-'}`,
    `  groups    ${directory.groupsOf(person.id).join(', ') || '-'}`,
  ];
}
