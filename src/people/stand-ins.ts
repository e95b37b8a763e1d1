/**
 * @module people/stand-ins
 * What a delegation lends, asked of one request's approver list: may this person decide it for an absentee, for whom,
 * and who stands in for whom on its card. The answers compare person ids against delegations read once (`away.ts`).
 */
import { deciderOf, isListed, type ApproverSet, type Decider } from './approvers.js';
import type { Delegations, StandIn } from './away.js';
import { namedPeople } from './targets.js';
import type { Directory } from './types.js';

/**
 * The absentee `person` may decide for (they stand in for them now and the approver list names them), or null. One who
 * is not a requester comes first; should only a requester remain, they are returned, and the decision check refuses an
 * approval as self-approval (nobody approves their own request through a delegation).
 * @example standingInFor(directory, delegations, approverSetOf(directory, ['person:alice']), 'bob', []) // 'alice' while bob stands in for her
 */
export function standingInFor(
  directory: Directory,
  delegations: Delegations,
  approvers: ApproverSet,
  person: string,
  requesters: readonly string[],
): string | null {
  if (delegations.empty) return null;
  const absentees = delegations
    .absenteesFor(person)
    .filter((a) => isListed(approvers, deciderOf(directory, `person:${a}`)));
  return absentees.find((a) => !requesters.includes(a)) ?? absentees[0] ?? null;
}

/** Whether `decider` may decide a request with these approvers: listed in their own right, or standing in for one who is. */
export function mayDecideAs(
  directory: Directory,
  approvers: ApproverSet,
  decider: Decider,
  delegations: Delegations,
): boolean {
  return isListed(approvers, decider) || standingInFor(directory, delegations, approvers, decider.person, []) !== null;
}

/** Who stands in for whom among the people an approver list names (by person, group, account or email). */
export function standInsOf(directory: Directory, delegations: Delegations, approvers: readonly string[]): StandIn[] {
  return delegations.empty ? [] : delegations.standInsFor(namedPeople(directory, approvers, true));
}
