/**
 * @module people/approvers
 * Approver lists and deciders as people. A request's `approvers` are references (`person:alice`, `group:leads`,
 * `email:a@x`, `slack:U1`, `slack:*`); a decision comes from an account. Both are resolved against the directory once,
 * where a decision enters the gateway, into the plain sets below; the checks downstream (may this person decide, is it
 * their own request, have they approved already) compare person ids and never consult the directory themselves.
 */
import type { DiscountedVoter } from '../requests/store.js';
import type { ConfirmationEvent } from '../requests/types.js';
import type { Delegations } from './away.js';
import type { Directory } from './types.js';

/** Who decides: the account the decision came from, its person, and the groups that person belongs to. */
export interface Decider {
  /** `<channel>:<account>`, as recorded in `responded_by`. */
  account: string;
  /** The directory's person id, or the account itself when the directory does not know it. */
  person: string;
  groups: readonly string[];
}

/** A request's approver list resolved to people: who may decide it. */
export interface ApproverSet {
  /** True when the list is empty: anyone who can see the card may decide. */
  anyone: boolean;
  people: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  /** Channel names from `<channel>:*` entries: every account on that channel may decide. */
  channels: ReadonlySet<string>;
}

/**
 * Problems with an approver list as filed: a `person:` or `group:` the directory does not know (an account or an email
 * that names nobody is still a person of its own). Each names its index, for a 400 naming `approvers[i]`.
 */
export function unknownApprovers(
  directory: Directory,
  approvers: readonly string[],
  field = 'approvers',
): { path: string; message: string }[] {
  return approvers.flatMap((entry, i) =>
    directory.reference(entry)
      ? []
      : [
          {
            path: `${field}[${i}]`,
            message: `${entry}: no such ${entry.startsWith('group:') ? 'group' : 'person'} in the people directory`,
          },
        ],
  );
}

/**
 * The decider behind `account` (`slack:U0ALICE` → alice and her groups). `vouched`: groups an identity provider put
 * them in (an OpenID groups claim); those the directory has count as theirs too.
 */
export function deciderOf(directory: Directory, account: string, vouched: readonly string[] = []): Decider {
  // `person:alice` is how a token bound to a person (not to one of her accounts) decides.
  const person = account.startsWith('person:') ? account.slice('person:'.length) : directory.personOf(account);
  const groups = directory.groupsOf(person);
  const extra = vouched.filter((g) => !groups.includes(g) && directory.group(g) !== null);
  return { account, person, groups: extra.length ? [...groups, ...extra] : groups };
}

/**
 * Resolves approver references to people. A reference whose person or group no longer exists (the directory was
 * reloaded since the request was filed) admits nobody, rather than failing the decision.
 */
export function approverSetOf(directory: Directory, approvers: readonly string[]): ApproverSet {
  const people = new Set<string>();
  const groups = new Set<string>();
  const channels = new Set<string>();
  for (const entry of approvers) {
    const ref = directory.reference(entry);
    if (!ref) continue;
    if (ref.kind === 'person') people.add(ref.id);
    else if (ref.kind === 'group') groups.add(ref.id);
    else if (ref.kind === 'wildcard') channels.add(ref.channel);
    else people.add(directory.personOf(ref.account));
  }
  return { anyone: approvers.length === 0, people, groups, channels };
}

/** Whether `decider` is one of the people `approvers` names. */
export function isListed(approvers: ApproverSet, decider: Decider): boolean {
  if (approvers.anyone || approvers.people.has(decider.person)) return true;
  if (decider.groups.some((g) => approvers.groups.has(g))) return true;
  const channel = decider.account.slice(0, decider.account.indexOf(':'));
  return approvers.channels.has(channel);
}

/**
 * The people a request was filed for or by: the person of its `user_id` (written with or without its channel prefix)
 * and the person its filing token speaks for. None of them may approve it (self-approval, by person). A bare
 * `user_id` (`U0ALICE`) is the person holding that account on some channel; filing refuses one that several people
 * hold ({@link bareUserIdProblem}), and should a reload make it ambiguous later, every holder counts as the requester.
 */
export function requesterPeople(
  directory: Directory,
  request: { userId: string | null; filedByPerson: string | null },
): string[] {
  const people: string[] = [];
  if (request.userId) {
    people.push(directory.personOf(request.userId));
    if (request.userId.startsWith('person:')) people.push(request.userId.slice('person:'.length));
    if (!request.userId.includes(':')) people.push(...directory.holdersOf(request.userId));
  }
  if (request.filedByPerson) people.push(request.filedByPerson);
  return people;
}

/**
 * Why a bare `user_id` (no channel prefix) cannot be filed: more than one person of the directory holds an account
 * with that id, so whose request it is (and who may not approve it) would be a guess. Null when it is fine.
 * @example bareUserIdProblem(directory, 'U0ALICE') // null when only alice has an account U0ALICE
 */
export function bareUserIdProblem(
  directory: Directory,
  userId: string | null | undefined,
): { path: string; message: string } | null {
  if (!userId || userId.includes(':')) return null;
  const holders = directory.holdersOf(userId);
  if (holders.length < 2) return null;
  return {
    path: 'user_id',
    message: `"${userId}" is an account of more than one person (${holders.map((p) => `person:${p}`).join(', ')}); write it with its channel (slack:${userId}) or as person:<id>`,
  };
}

/**
 * The approvals recorded on a request by people who are no longer its approvers, re-checked against the directory in
 * force (a quorum counts only votes of people who are still approvers when it completes; ARCHITECTURE.md, "Security
 * rules"). An approval that needed groups an identity provider vouched for (`detail.vouched_groups`) keeps them until
 * `detail.vouched_until`. `except`: the person voting now (checked already, as a decider). Events without a person
 * are read as their account's, as the stores count them. A delegate's approval (`detail.on_behalf_of`) counts while
 * the absentee is still an approver and `delegations` (those in force) still has the delegate standing in for them.
 * @example discountedVoters(directory, approverSetOf(directory, request.approvers), events, 'alice', now) // [{ person: 'bob', reason: '…' }]
 */
export function discountedVoters(
  directory: Directory,
  approvers: ApproverSet,
  events: readonly ConfirmationEvent[],
  except: string,
  now: Date,
  delegations?: Delegations,
): DiscountedVoter[] {
  const found: DiscountedVoter[] = [];
  for (const event of events) {
    if (event.type !== 'approved' || !event.actor) continue;
    const person = typeof event.detail.person === 'string' ? event.detail.person : event.actor;
    if (person === except || found.some((d) => d.person === person)) continue;
    const absentee = typeof event.detail.on_behalf_of === 'string' ? event.detail.on_behalf_of : null;
    if (
      absentee &&
      delegations?.absenteesFor(person).includes(absentee) &&
      isListed(approvers, deciderOf(directory, `person:${absentee}`))
    )
      continue;
    const vouched = Array.isArray(event.detail.vouched_groups)
      ? event.detail.vouched_groups.filter((g): g is string => typeof g === 'string')
      : [];
    const until = typeof event.detail.vouched_until === 'string' ? Date.parse(event.detail.vouched_until) : NaN;
    const holding = until > now.getTime() ? vouched.filter((g) => directory.group(g) !== null) : [];
    const asRecorded: Decider = { account: event.actor, person, groups: [...directory.groupsOf(person), ...holding] };
    if (isListed(approvers, asRecorded) || isListed(approvers, deciderOf(directory, event.actor))) continue;
    const reason = absentee
      ? `approved for ${absentee}, whom they no longer stand in for (or who is no longer an approver of this request)`
      : vouched.length && !holding.length
        ? `approved through groups the identity provider vouched for (${vouched.join(', ')}), which no longer hold`
        : 'no longer an approver of this request (the people directory in force does not list them)';
    found.push({ person, reason });
  }
  return found;
}
