/**
 * @module people/targets
 * Cards that reach people: a request whose approvers name people or groups (and whose channels nobody chose) is sent
 * to each of those people directly, on every enabled channel they have an account on that can reach one person (a
 * Slack or Feishu direct message), and on every channel that reaches a person as such (Web Push). Channels say how
 * through {@link DirectChannel.directTarget} and {@link DirectChannel.personTarget}. Whoever stands in for an
 * approver who is away (`away.ts`) is reached the same way ({@link delegateTargets}).
 */
import type { Delegations } from './away.js';
import type { Directory } from './types.js';

/** What this needs of a channel: the card target that reaches one account directly, or none. */
export interface DirectChannel {
  /** The target for a direct message to `account` (the id after `slack:`), or null/absent when the channel has none. */
  directTarget?(account: string): string | null;
  /** The target that reaches a person whatever their accounts (Web Push devices), or null/absent. */
  personTarget?(person: string): string | null;
}

/**
 * The people an approver list names: by `person:` and `group:` (members expanded), and with `accounts`, the person
 * behind each account or email too. Each once, in the order first met; wildcards (`slack:*`) name nobody.
 */
export function namedPeople(directory: Directory, approvers: readonly string[], accounts = false): string[] {
  const people = new Set<string>();
  for (const entry of approvers) {
    const ref = directory.reference(entry);
    if (ref?.kind === 'person') people.add(ref.id);
    else if (ref?.kind === 'group') for (const id of directory.group(ref.id)?.people ?? []) people.add(id);
    else if (ref?.kind === 'account' && accounts) people.add(directory.personOf(ref.account));
  }
  return [...people];
}

/**
 * The direct-message targets of the people `approvers` names by `person:` or `group:` (accounts and emails listed as
 * such keep today's meaning: they are allowed to decide, nobody is messaged for them). Each target once.
 */
export function directTargets(
  directory: Directory,
  approvers: readonly string[],
  channels: ReadonlyMap<string, DirectChannel>,
): { type: string; target: string }[] {
  return targetsOf(directory, namedPeople(directory, approvers), channels);
}

/**
 * The direct-message targets of whoever stands in for an approver who is away, however the list names the absentee
 * (person, group, account or email): they are sent the card even where the caller chose the channels, since nothing
 * else tells them a request waits for them.
 */
export function delegateTargets(
  directory: Directory,
  approvers: readonly string[],
  channels: ReadonlyMap<string, DirectChannel>,
  delegations: Delegations,
): { type: string; target: string }[] {
  if (delegations.empty) return [];
  const absentees = namedPeople(directory, approvers, true);
  return targetsOf(
    directory,
    absentees.flatMap((a) => delegations.delegatesOf(a)),
    channels,
  );
}

/** Every direct-message target of `people`, each once. */
function targetsOf(
  directory: Directory,
  people: Iterable<string>,
  channels: ReadonlyMap<string, DirectChannel>,
): { type: string; target: string }[] {
  const targets = new Map<string, { type: string; target: string }>();
  for (const id of people) {
    const person = directory.person(id);
    // A person's `email` is their account on the email channel (when one is on), as `email:` approvers are.
    const accounts = { ...(person?.email ? { email: person.email } : {}), ...person?.accounts };
    for (const [channelName, account] of Object.entries(accounts)) {
      const target = channels.get(channelName)?.directTarget?.(account);
      if (target) targets.set(`${channelName}\u0000${target}`, { type: channelName, target });
    }
    for (const [channelName, channel] of channels) {
      const target = channel.personTarget?.(id);
      if (target) targets.set(`${channelName}\u0000${target}`, { type: channelName, target });
    }
  }
  return [...targets.values()];
}
