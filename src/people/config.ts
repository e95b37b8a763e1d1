/**
 * @module people/config
 * The people directory from the config file's `people:` and `groups:` sections (ARCHITECTURE.md, "People and
 * groups"). Every problem is a start-up (or reload) error naming the file, the entry and what is wrong:
 * `tollgate.yaml: people[2].accounts.slack: U0ALICE is also the account of people[0] "alice"`.
 */
import { z } from 'zod';
import { ValidationError, type FieldProblem } from '../errors.js';
import { fieldProblems } from '../validation.js';
import { emailAccount, MemoryDirectory } from './memory-directory.js';
import { NO_DIRECTORY } from './no-directory.js';
import type { Directory, Person } from './types.js';

const ID = /^[a-z0-9._-]+$/;
const idSchema = z.string().max(100).regex(ID, 'use lower-case letters, digits, ".", "_" and "-"');

/** One entry of `people:`. Accounts are keyed by channel name, so a new channel needs no change here. */
export const personEntrySchema = z.strictObject({
  id: idSchema,
  name: z.string().min(1).max(200).optional(),
  email: z.email().max(320).optional(),
  accounts: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a channel name'),
      z.union([z.string().min(1).max(200), z.number().transform(String)]),
    )
    .optional(),
});

/** `groups:`: group id → members, each a person id or `group:<id>`. */
export const groupsSectionSchema = z.record(idSchema, z.array(z.string().min(1).max(200)));

/** The directory sections of the config file, as parsed YAML (not yet validated). */
export interface DirectorySections {
  people?: unknown;
  groups?: unknown;
}

/**
 * Validates the sections and builds the directory; the empty directory ({@link NO_DIRECTORY}) when both are absent.
 * @throws ValidationError listing every problem, each path prefixed with `source`.
 * @example const directory = loadDirectory(parseYaml(text), 'tollgate.yaml');
 */
export function loadDirectory(sections: DirectorySections, source: string): Directory {
  if (sections.people === undefined && sections.groups === undefined) return NO_DIRECTORY;
  const problems: FieldProblem[] = [];
  const people = readPeople(sections.people, source, problems);
  const groups = readGroups(sections.groups, new Set(people.map((p) => p.id)), source, problems);
  if (problems.length) {
    const first = problems[0]!;
    throw new ValidationError(`${first.path}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, problems);
  }
  return new MemoryDirectory(people, groups);
}

function readPeople(raw: unknown, source: string, problems: FieldProblem[]): Person[] {
  const list = z.array(z.unknown()).safeParse(raw ?? []);
  if (!list.success) {
    problems.push({ path: `${source}: people`, message: 'expected a list of people' });
    return [];
  }
  const people: Person[] = [];
  const ids = new Map<string, number>();
  // Who owns each account key (`slack:U0ALICE`, `email:alice@example.com`): one person per account.
  const owners = new Map<string, number>();
  list.data.forEach((entry, index) => {
    const id = (entry as { id?: unknown } | null)?.id;
    const where = `${source}: people[${index}]${typeof id === 'string' ? ` "${id}"` : ''}`;
    const parsed = personEntrySchema.safeParse(entry);
    if (!parsed.success) {
      problems.push(...fieldProblems(parsed.error.issues, where, where));
      return;
    }
    const { id: personId, name, email, accounts = {} } = parsed.data;
    const earlier = ids.get(personId);
    if (earlier !== undefined) problems.push({ path: `${where}.id`, message: `the id is used by people[${earlier}] too; ids must be unique` });
    ids.set(personId, index);
    const claim = (key: string, path: string, shown: string) => {
      const owner = owners.get(key);
      if (owner !== undefined && owner !== index) problems.push({ path, message: `${shown} is also the account of people[${owner}] "${people[owner]?.id ?? '?'}"` });
      owners.set(key, index);
    };
    for (const [channel, account] of Object.entries(accounts)) {
      claim(channel === 'email' ? emailAccount(account) : `${channel}:${account}`, `${where}.accounts.${channel}`, account);
    }
    if (email) claim(emailAccount(email), `${where}.email`, email);
    people[index] = { id: personId, name: name ?? null, email: email ?? null, accounts };
  });
  return people.filter(Boolean);
}

function readGroups(raw: unknown, people: ReadonlySet<string>, source: string, problems: FieldProblem[]): Map<string, string[]> {
  const parsed = groupsSectionSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    problems.push(...fieldProblems(parsed.error.issues, `${source}: groups`, `${source}: groups`));
    return new Map();
  }
  const groups = new Map(Object.entries(parsed.data));
  for (const [id, members] of groups) {
    members.forEach((member, i) => {
      const path = `${source}: groups.${id}[${i}]`;
      if (member.startsWith('group:')) {
        if (!groups.has(member.slice('group:'.length))) problems.push({ path, message: `${member}: no such group` });
      } else if (!people.has(member)) {
        problems.push({ path, message: `${member}: no such person in people: (write group:<id> for a group)` });
      }
    });
  }
  for (const id of groups.keys()) {
    const cycle = cycleFrom(id, groups, [id]);
    if (cycle) {
      problems.push({ path: `${source}: groups.${id}`, message: `the group contains itself: ${cycle.join(' → ')}` });
      break;
    }
  }
  return groups;
}

/** The path back to `path[0]` through nested groups, if there is one. */
function cycleFrom(id: string, groups: ReadonlyMap<string, readonly string[]>, path: string[]): string[] | null {
  for (const member of groups.get(id) ?? []) {
    if (!member.startsWith('group:')) continue;
    const next = member.slice('group:'.length);
    if (next === path[0]) return [...path, next];
    if (path.includes(next)) continue;
    const found = cycleFrom(next, groups, [...path, next]);
    if (found) return found;
  }
  return null;
}
