/**
 * @module people/targets
 * Cards that reach people: a request whose approvers name people or groups (and whose channels nobody chose) is sent
 * to each of those people directly, on every enabled channel they have an account on that can reach one person (a
 * Slack or Feishu direct message), and on every channel that reaches a person as such (Web Push). Channels say how
 * through {@link DirectChannel.directTarget} and {@link DirectChannel.personTarget}.
 */
import type { Directory } from './types.js';

/** What this needs of a channel: the card target that reaches one account directly, or none. */
export interface DirectChannel {
  /** The target for a direct message to `account` (the id after `slack:`), or null/absent when the channel has none. */
  directTarget?(account: string): string | null;
  /** The target that reaches a person whatever their accounts (Web Push devices), or null/absent. */
  personTarget?(person: string): string | null;
}

/**
 * The direct-message targets of the people `approvers` names by `person:` or `group:` (accounts and emails listed as
 * such keep today's meaning: they are allowed to decide, nobody is messaged for them). Each target once.
 */
export function directTargets(directory: Directory, approvers: readonly string[], channels: ReadonlyMap<string, DirectChannel>): { type: string; target: string }[] {
  const people = new Set<string>();
  for (const entry of approvers) {
    const ref = directory.reference(entry);
    if (ref?.kind === 'person') people.add(ref.id);
    else if (ref?.kind === 'group') for (const id of directory.group(ref.id)?.people ?? []) people.add(id);
  }
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
