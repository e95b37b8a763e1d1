/**
 * @module people/config
 * The people directory from the config file's `people:` and `groups:` sections (ARCHITECTURE.md, "People and
 * groups"). Every problem is a start-up (or reload) error naming the file, the entry and what is wrong:
 * `tollgate.yaml: people[2].accounts.slack: U0ALICE is also the account of people[0] "alice"`.
 */
import { z } from 'zod';
import { ValidationError, type FieldProblem } from '../api/errors.js';
import { fieldProblems } from '../api/validation.js';
import { delegationCycle, type Away } from './away.js';
import { emailAccount, MemoryDirectory } from './memory-directory.js';
import { NO_DIRECTORY } from './no-directory.js';
import type { Directory, Person } from './types.js';

const ID = /^[a-z0-9._-]+$/;
const idSchema = z.string().max(100).regex(ID, 'use lower-case letters, digits, ".", "_" and "-"');
/** A time in the config (YAML may hand a date over as a Date) or the API: ISO 8601, a date alone meaning its UTC midnight. */
const instantSchema = z.union([z.date(), z.string().max(40)]).transform((value, ctx) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected a date or time (ISO 8601, e.g. 2026-12-03 or 2026-12-03T09:00:00Z)',
    });
    return z.NEVER;
  }
  return date;
});

/**
 * An away window (`people[].away`, `PUT /v1/people/…/away`): the delegate is written `person:<id>`; `until` after
 * `from`. Whether the delegate exists and whether a cycle closes is checked against the directory by the caller.
 */
export const awaySchema = z
  .strictObject({
    from: instantSchema,
    until: instantSchema,
    delegate: z
      .string()
      .regex(/^person:[a-z0-9._-]+$/, 'write the delegate as person:<id>')
      .nullish(),
    note: z.string().max(500).optional(),
  })
  .refine((a) => a.until.getTime() > a.from.getTime(), { path: ['until'], message: 'until must be after from' });

/** An away window as parsed (the delegate still `person:<id>`). */
export type AwayInput = z.output<typeof awaySchema>;

/** The {@link Away} of a parsed window. */
export function awayOf(input: AwayInput): Away {
  return {
    from: input.from,
    until: input.until,
    delegate: input.delegate ? input.delegate.slice('person:'.length) : null,
    note: input.note ?? null,
  };
}

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
  away: awaySchema.optional(),
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
    throw new ValidationError(
      `${first.path}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      problems,
    );
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
    const { id: personId, name, email, accounts = {}, away } = parsed.data;
    const earlier = ids.get(personId);
    if (earlier !== undefined)
      problems.push({ path: `${where}.id`, message: `the id is used by people[${earlier}] too; ids must be unique` });
    ids.set(personId, index);
    const claim = (key: string, path: string, shown: string) => {
      const owner = owners.get(key);
      if (owner !== undefined && owner !== index)
        problems.push({
          path,
          message: `${shown} is also the account of people[${owner}] "${people[owner]?.id ?? '?'}"`,
        });
      owners.set(key, index);
    };
    for (const [channel, account] of Object.entries(accounts)) {
      claim(
        channel === 'email' ? emailAccount(account) : `${channel}:${account}`,
        `${where}.accounts.${channel}`,
        account,
      );
    }
    if (email) claim(emailAccount(email), `${where}.email`, email);
    people[index] = {
      id: personId,
      name: name ?? null,
      email: email ?? null,
      accounts,
      ...(away ? { away: awayOf(away) } : {}),
    };
  });
  checkDelegates(people, source, problems);
  return people.filter(Boolean);
}

/** Each away window's delegate must be another configured person, and no set of windows may delegate in a circle. */
function checkDelegates(people: readonly Person[], source: string, problems: FieldProblem[]): void {
  const ids = new Set(people.filter(Boolean).map((p) => p.id));
  const windows = new Map(people.filter((p) => p?.away).map((p) => [p.id, p.away!]));
  people.forEach((person, index) => {
    if (!person?.away) return;
    const path = `${source}: people[${index}] "${person.id}".away.delegate`;
    const { delegate } = person.away;
    if (delegate === null) return;
    if (delegate === person.id) problems.push({ path, message: `person:${delegate} cannot be their own delegate` });
    else if (!ids.has(delegate)) problems.push({ path, message: `person:${delegate}: no such person in people:` });
    else {
      const cycle = delegationCycle(windows, person.id, person.away);
      if (cycle) problems.push({ path, message: `the delegations form a cycle: ${cycle.join(' → ')}` });
    }
  });
}

function readGroups(
  raw: unknown,
  people: ReadonlySet<string>,
  source: string,
  problems: FieldProblem[],
): Map<string, string[]> {
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
