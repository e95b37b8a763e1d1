/**
 * @module people/query
 * The audit query's people filters: `person=alice` (requests alice decided or voted on, from any of her accounts) and
 * `group=finance-leads` (requests any member decided or voted on), turned into the store's `respondedByPeople` (with
 * `includeVotes`).
 */
import { ValidationError } from '../api/errors.js';
import type { Directory } from './types.js';

/**
 * The people whose decisions `person` and/or `group` select (both: the person, if in the group), or undefined when
 * neither is given. An unknown group is a 400 naming `group`; a person the directory does not know is taken as
 * written (an account decides as a person of its own: `person=slack:U0ALICE` still finds what it decided).
 */
export function decidedByPeople(
  directory: Directory,
  filter: { person?: string; group?: string },
): string[] | undefined {
  const person =
    filter.person === undefined
      ? undefined
      : directory.person(filter.person)
        ? filter.person
        : directory.personOf(filter.person);
  if (filter.group === undefined) return person === undefined ? undefined : [person];
  const group = directory.group(filter.group);
  if (!group)
    throw new ValidationError(`group: no group "${filter.group}" in the people directory`, [
      { path: 'group', message: 'unknown group' },
    ]);
  return person === undefined ? [...group.people] : group.people.filter((p) => p === person);
}
