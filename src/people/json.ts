/**
 * @module people/json
 * People, groups and references as the API (`GET /v1/people`, `/v1/groups`) and `tollgate people … --json` show them.
 */
import type { Away } from './away.js';
import type { Directory, Group, Person } from './types.js';

/** An away window as the API, the event stream and the CLI show it (the delegate written `person:<id>`). */
export function awayJson(away: Away | null) {
  return (
    away && {
      from: away.from.toISOString(),
      until: away.until.toISOString(),
      delegate: away.delegate && `person:${away.delegate}`,
      note: away.note,
    }
  );
}

/** A person with the groups they are in (nested groups included). */
export function personJson(directory: Directory, person: Person) {
  return {
    id: person.id,
    name: person.name,
    email: person.email,
    accounts: person.accounts,
    groups: directory.groupsOf(person.id),
    unresolved: person.unresolved ?? {},
  };
}

/** A group: its members as written and every person in it. */
export function groupJson(group: Group) {
  return { id: group.id, members: group.members, people: group.people };
}

/**
 * What an approver reference stands for: its kind and the people it admits (`slack:*` admits every account of the
 * channel, so no list); null when it names a person or group the directory does not have.
 * @example resolveReference(directory, 'group:leads') // { reference: 'group:leads', kind: 'group', people: ['alice', 'bob'] }
 */
export function resolveReference(directory: Directory, reference: string) {
  const ref = directory.reference(reference);
  if (!ref) return null;
  if (ref.kind === 'person') return { reference, kind: ref.kind, people: [ref.id] };
  if (ref.kind === 'group') return { reference, kind: ref.kind, people: directory.group(ref.id)?.people ?? [] };
  if (ref.kind === 'wildcard') return { reference, kind: ref.kind, channel: ref.channel, people: null };
  const person = directory.personOf(ref.account);
  return {
    reference,
    kind: ref.kind,
    account: ref.account,
    people: [person],
    known: directory.person(person) !== null,
  };
}
