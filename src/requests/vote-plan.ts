/**
 * @module requests/vote-plan
 * What one vote does to a pending request, whatever database holds it: a duplicate approval changes nothing, an
 * approval short of the quorum adds an `approved` event only, and a deny or the approval completing the quorum flips
 * the row. Each store reads the row (and, for an approval towards a quorum, its prior approvers) under its own lock,
 * asks {@link planVote}, and writes.
 */
import type { Vote } from './store.js';
import type { ConfirmationRequest, NewEvent } from './types.js';

/** The columns a verdict sets besides `status`. */
export interface VerdictFields {
  respondedBy: string | null;
  respondedVia: string | null;
  decisionOption?: string | null;
  reason?: string | null;
  approvedArgs?: Record<string, unknown> | null;
  at: Date;
}

/** What to write for one vote. */
export type VotePlan =
  | { kind: 'duplicate' }
  | { kind: 'recorded'; event: NewEvent; approvals: number }
  | { kind: 'final'; event: NewEvent; status: 'approved' | 'denied'; fields: VerdictFields };

/**
 * Whether {@link planVote} needs the request's prior approvers: only an approval towards a quorum does. A pending
 * request that one approval settles has none (the first would have settled it), so its vote skips that read.
 */
export function needsPriorApprovers(current: ConfirmationRequest, vote: Vote): boolean {
  return vote.decision === 'approve' && current.requiredApprovals > 1;
}

/**
 * The plan for `vote` on `current` (pending), given the actors whose approvals are recorded already.
 * @example planVote(row, ['slack:U1'], { decision: 'approve', actor: 'slack:U2', … }) // final when 2 are required
 */
export function planVote(current: Pick<ConfirmationRequest, 'requiredApprovals'>, priorApprovers: readonly string[], vote: Vote): VotePlan {
  const detail: Record<string, unknown> = { option: vote.option, reason: vote.reason, ...(vote.token ? { token: vote.token } : {}) };
  const fields: VerdictFields = {
    respondedBy: vote.actor,
    respondedVia: vote.via,
    decisionOption: vote.option,
    reason: vote.reason,
    approvedArgs: vote.approvedArgs,
    at: vote.at,
  };
  if (vote.decision === 'deny') {
    return { kind: 'final', status: 'denied', event: { type: 'denied', actor: vote.actor, channel: vote.via, detail, at: vote.at }, fields };
  }
  if (priorApprovers.includes(vote.actor)) return { kind: 'duplicate' };
  const approvals = priorApprovers.length + 1;
  Object.assign(detail, { approvals, required: current.requiredApprovals }, vote.approvedArgs ? { approved_args: vote.approvedArgs } : {});
  const event: NewEvent = { type: 'approved', actor: vote.actor, channel: vote.via, detail, at: vote.at };
  if (approvals < current.requiredApprovals) return { kind: 'recorded', event, approvals };
  return { kind: 'final', status: 'approved', event, fields };
}
