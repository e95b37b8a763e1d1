/**
 * @module people/no-directory
 * The directory of a gateway configured with no `people:` or `groups:`: every account is a person of its own, so
 * approver lists of channel accounts keep the meaning they had before the directory existed.
 */
import type { ApproverReference, Directory } from './types.js';

/** Parses the syntax of an approver reference; null when it is not one (no `:` and no `@`). */
export function parseReference(reference: string): ApproverReference | null {
  const colon = reference.indexOf(':');
  if (colon <= 0)
    return reference.includes('@') ? { kind: 'account', account: `email:${reference.toLowerCase()}` } : null;
  const kind = reference.slice(0, colon);
  const rest = reference.slice(colon + 1);
  if (!rest) return null;
  if (kind === 'person') return { kind: 'person', id: rest };
  if (kind === 'group') return { kind: 'group', id: rest };
  if (rest === '*') return { kind: 'wildcard', channel: kind };
  return { kind: 'account', account: kind === 'email' ? `email:${rest.toLowerCase()}` : reference };
}

/** A directory that knows nobody: `personOf(account)` is the account itself, and no person or group exists. */
export const NO_DIRECTORY: Directory = {
  people: () => [],
  groups: () => [],
  person: () => null,
  group: () => null,
  personOf: (account) => account,
  groupsOf: () => [],
  holdersOf: () => [],
  reference(reference) {
    const parsed = parseReference(reference);
    return parsed && (parsed.kind === 'person' || parsed.kind === 'group') ? null : parsed;
  },
};
