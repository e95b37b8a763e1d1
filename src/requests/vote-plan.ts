/**
 * @module requests/vote-plan
 * What one vote does to a pending request, whatever database holds it: a duplicate approval changes nothing, an
 * approval short of the quorum adds an `approved` event only, and a deny or the approval completing the quorum flips
 * the row. A quorum counts people, not accounts: each `approved` event names its person (`detail.person`), and an
 * approval by a person already counted is a duplicate whichever account it comes from, and the approval of a person the
 * gateway found no longer an approver (`Vote.discounted`) is not counted at all. A quorum counts seats too: a delegate's
 * approval fills the absentee's seat (`detail.on_behalf_of`), so the absentee's own approval cannot fill it again, nor
 * a delegate's after the absentee's (issue 58: bob for alice, then alice, made two of one seat). Each store reads the row (and,
 * for an approval towards a quorum, its prior approvers) under its own lock, asks {@link planVote}, and writes.
 */
import type { Vote } from './store.js';
import type { ConfirmationRequest, NewEvent } from './types.js';

/** The columns a verdict sets besides `status`. */
export interface VerdictFields {
  respondedBy: string | null;
  respondedVia: string | null;
  /** The person behind `respondedBy` (null for the system). */
  respondedByPerson?: string | null;
  /** The absentee the responder stood in for (see `Vote.onBehalfOf`). */
  onBehalfOf?: string | null;
  decisionOption?: string | null;
  reason?: string | null;
  approvedArgs?: Record<string, unknown> | null;
  at: Date;
}

/** One approval recorded already: its account, its person and the absentee it stood in for (`null`: nobody). */
export interface PriorApproval {
  actor: string;
  person: string;
  onBehalfOf?: string | null;
}

/** What to write for one vote. */
export type VotePlan =
  | { kind: 'duplicate'; priorActor: string }
  | { kind: 'recorded'; event: NewEvent; approvals: number }
  | {
      kind: 'final';
      event: NewEvent;
      status: 'approved' | 'denied';
      fields: VerdictFields;
      /** The approvals that made the verdict, in order (this vote last): the verdict token names them. */
      approvals: PriorApproval[];
    };

/** An earlier approval left out of the count because it was not witnessed (`audit/witnessed-approvals.ts`). */
export interface UnwitnessedApproval {
  actor: string;
  person: string;
  why: string;
}

/**
 * Whether {@link planVote} needs the request's prior approvers: only an approval towards a quorum does. A pending
 * request that one approval settles has none (the first would have settled it), so its vote skips that read.
 */
export function needsPriorApprovers(current: Pick<ConfirmationRequest, 'requiredApprovals'>, vote: Vote): boolean {
  return vote.decision === 'approve' && current.requiredApprovals > 1;
}

/**
 * The plan for `vote` on `current` (pending), given the approvals recorded already that count (`priorApprovals`) and
 * those left out because nobody witnessed them (`unwitnessed`, named in the vote's event).
 * @example planVote(row, [{ actor: 'slack:U1', person: 'alice' }], { decision: 'approve', actor: 'slack:U2', person: 'bob', … }) // final when 2 are required
 */
export function planVote(
  current: Pick<ConfirmationRequest, 'requiredApprovals'>,
  priorApprovals: readonly PriorApproval[],
  vote: Vote,
  unwitnessed: readonly UnwitnessedApproval[] = [],
): VotePlan {
  const person = vote.person ?? vote.actor;
  const detail: Record<string, unknown> = {
    option: vote.option,
    reason: vote.reason,
    person,
    ...(vote.onBehalfOf ? { on_behalf_of: vote.onBehalfOf } : {}),
    ...(vote.token ? { token: vote.token } : {}),
  };
  const fields: VerdictFields = {
    respondedBy: vote.actor,
    respondedVia: vote.via,
    respondedByPerson: person,
    onBehalfOf: vote.onBehalfOf ?? null,
    decisionOption: vote.option,
    reason: vote.reason,
    approvedArgs: vote.approvedArgs,
    at: vote.at,
  };
  if (vote.decision === 'deny') {
    return {
      kind: 'final',
      status: 'denied',
      event: { type: 'denied', actor: vote.actor, channel: vote.via, detail, at: vote.at },
      fields,
      approvals: [],
    };
  }
  // One vote per person, and one per seat: the seat of a delegate's vote is the absentee's.
  const seat = vote.onBehalfOf ?? person;
  const prior = priorApprovals.find((a) => a.person === person || (a.onBehalfOf ?? a.person) === seat);
  if (prior) return { kind: 'duplicate', priorActor: prior.actor };
  // Approvals of people who are no longer approvers do not count; the event names them and why (issue 49).
  const reasons = new Map((vote.discounted ?? []).map((d) => [d.person, d.reason]));
  const discounted = priorApprovals
    .filter((a) => reasons.has(a.person))
    .map((a) => ({ person: a.person, actor: a.actor, reason: reasons.get(a.person)! }));
  const approvals = priorApprovals.length - discounted.length + 1;
  Object.assign(
    detail,
    { approvals, required: current.requiredApprovals },
    vote.approvedArgs ? { approved_args: vote.approvedArgs } : {},
    discounted.length ? { discounted } : {},
    unwitnessed.length ? { unwitnessed } : {},
    vote.vouched ? { vouched_groups: vote.vouched.groups, vouched_until: vote.vouched.until.toISOString() } : {},
  );
  const event: NewEvent = { type: 'approved', actor: vote.actor, channel: vote.via, detail, at: vote.at };
  if (approvals < current.requiredApprovals) return { kind: 'recorded', event, approvals };
  const counted = priorApprovals.filter((a) => !reasons.has(a.person));
  return {
    kind: 'final',
    status: 'approved',
    event,
    fields,
    approvals: [...counted, { actor: vote.actor, person, onBehalfOf: vote.onBehalfOf ?? null }],
  };
}
