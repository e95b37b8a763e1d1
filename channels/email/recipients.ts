/**
 * @module channels/email/recipients
 * Who a mail goes to. A card's target is one address, or {@link EVERY_APPROVER} (what `{"type":"email"}` without a
 * target means): every approver of the request that has an address — `email:` approvers and bare addresses as
 * written, and the people the directory knows behind `person:`, `group:` and channel accounts, by their `email`.
 */
import { PermanentChannelError } from '../../src/channel/channel.js';
import type { Directory } from '../../src/people/types.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { ADDRESS } from './options.js';

/** The target `{"type":"email"}` gets: mail every approver that has an address. */
export const EVERY_APPROVER = 'approvers';

/** An address as tollgate compares and records it: trimmed, lower case. */
export function normalAddress(address: string): string {
  return address.trim().toLowerCase();
}

/** The address of a person of the directory: their `email`, or their `email` account. */
function personAddress(directory: Directory | undefined, id: string): string | null {
  const person = directory?.person(id);
  return person?.email ?? person?.accounts.email ?? null;
}

/** Every address the approver list reaches, each once, in list order. */
export function approverAddresses(approvers: readonly string[], directory?: Directory): string[] {
  const found = new Set<string>();
  const add = (address: string | null) => {
    if (address && ADDRESS.test(address.trim())) found.add(normalAddress(address));
  };
  for (const entry of approvers) {
    if (entry.startsWith('email:')) add(entry.slice('email:'.length));
    else if (!entry.includes(':') && entry.includes('@')) add(entry);
    else if (entry.startsWith('person:')) add(personAddress(directory, entry.slice('person:'.length)));
    else if (entry.startsWith('group:'))
      for (const id of directory?.group(entry.slice('group:'.length))?.people ?? []) add(personAddress(directory, id));
    else if (directory) add(personAddress(directory, directory.personOf(entry)));
  }
  return [...found];
}

/**
 * The addresses a card goes to. Throws {@link PermanentChannelError} for a target that is not an address, or when no
 * approver has one (retrying would not find one either).
 */
export function recipientsOf(request: ConfirmationRequest, target: string, directory?: Directory): string[] {
  if (target === EVERY_APPROVER) {
    const all = approverAddresses(request.approvers, directory);
    if (!all.length)
      throw new PermanentChannelError(
        'email: no approver of this request has an email address (name one as email:<address>, or give the card a target)',
        'no_recipients',
      );
    return all;
  }
  if (!ADDRESS.test(target.trim()))
    throw new PermanentChannelError(`email: not an email address: ${target}`, 'bad_target');
  return [normalAddress(target)];
}

/** A message reference: the addresses mailed, space-separated (the final notice goes to them). */
export function formatMessageRef(recipients: readonly string[]): string {
  return recipients.join(' ');
}

/** The addresses of a message reference. */
export function parseMessageRef(ref: string): string[] {
  return ref.split(' ').filter((a) => ADDRESS.test(a));
}
