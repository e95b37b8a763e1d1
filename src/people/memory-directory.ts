/**
 * @module people/memory-directory
 * The {@link Directory} built from the config file's `people:` and `groups:` (see `people/config.ts`), held in maps
 * so every question is answered in O(1). Groups are flattened once here: a person in `finance-leads` is also in
 * every group that contains `group:finance-leads`.
 */
import { parseReference } from './no-directory.js';
import type { ApproverReference, Directory, Group, Person } from './types.js';

/** The account key of an email address: addresses compare without regard to case. */
export function emailAccount(address: string): string {
  return `email:${address.trim().toLowerCase()}`;
}

/** A directory held in memory. Build it with `loadDirectory` (which checks ids and cycles) or directly in tests. */
export class MemoryDirectory implements Directory {
  private readonly byId: ReadonlyMap<string, Person>;
  private readonly byAccount = new Map<string, string>();
  /** Account ids without their channel (`U0ALICE`) → the people holding them, for bare `user_id`s. */
  private readonly byBareAccount = new Map<string, string[]>();
  private readonly groupById: ReadonlyMap<string, Group>;
  private readonly groupsByPerson = new Map<string, string[]>();

  /**
   * @param peopleList people in configuration order; their `accounts` and `email` become the accounts they own
   * @param groupMembers group id → direct members (people ids and `group:<id>`), acyclic (loadDirectory checks it)
   */
  constructor(
    private readonly peopleList: readonly Person[],
    groupMembers: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {
    this.byId = new Map(peopleList.map((p) => [p.id, p]));
    for (const person of peopleList) {
      for (const [channel, account] of Object.entries(person.accounts)) {
        this.byAccount.set(channel === 'email' ? emailAccount(account) : `${channel}:${account}`, person.id);
        const holders = this.byBareAccount.get(account) ?? [];
        if (!holders.includes(person.id)) this.byBareAccount.set(account, [...holders, person.id]);
      }
      if (person.email) this.byAccount.set(emailAccount(person.email), person.id);
    }
    const groups = new Map<string, Group>();
    for (const [id, members] of groupMembers) {
      const group: Group = { id, members: [...members], people: flatten(id, groupMembers) };
      groups.set(id, group);
      for (const person of group.people)
        this.groupsByPerson.set(person, [...(this.groupsByPerson.get(person) ?? []), id]);
    }
    this.groupById = groups;
  }

  people(): readonly Person[] {
    return this.peopleList;
  }

  groups(): readonly Group[] {
    return [...this.groupById.values()];
  }

  person(id: string): Person | null {
    return this.byId.get(id) ?? null;
  }

  group(id: string): Group | null {
    return this.groupById.get(id) ?? null;
  }

  personOf(account: string): string {
    // A bare address (a `user_id` written without its channel) is an email account.
    const key =
      account.startsWith('email:') || (!account.includes(':') && account.includes('@'))
        ? emailAccount(account.replace(/^email:/, ''))
        : account;
    return this.byAccount.get(key) ?? account;
  }

  groupsOf(personId: string): readonly string[] {
    return this.groupsByPerson.get(personId) ?? [];
  }

  holdersOf(id: string): readonly string[] {
    return this.byBareAccount.get(id) ?? [];
  }

  reference(reference: string): ApproverReference | null {
    const parsed = parseReference(reference);
    if (parsed?.kind === 'person') return this.byId.has(parsed.id) ? parsed : null;
    if (parsed?.kind === 'group') return this.groupById.has(parsed.id) ? parsed : null;
    return parsed;
  }
}

/** Every person in group `id`, nested groups expanded, each once, in the order first met. */
function flatten(id: string, groups: ReadonlyMap<string, readonly string[]>, seen = new Set<string>()): string[] {
  if (seen.has(id)) return [];
  seen.add(id);
  const people: string[] = [];
  for (const member of groups.get(id) ?? []) {
    for (const person of member.startsWith('group:')
      ? flatten(member.slice('group:'.length), groups, seen)
      : [member]) {
      if (!people.includes(person)) people.push(person);
    }
  }
  return people;
}
