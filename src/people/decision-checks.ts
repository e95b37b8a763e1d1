/**
 * @module people/decision-checks
 * Whether a verified tap or API decision may apply to a request at all, before any vote is counted: the button's
 * nonce, the state, the deadline, the arguments the approver saw, the allowlist, and self-approval — the last two by
 * person (the decider and the approver list arrive resolved against the directory, see `people/approvers.ts`).
 */
import type { DecisionEvent, DecisionRejection } from '../requests/decision-event.js';
import { isListed, type ApproverSet, type Decider } from './approvers.js';
import type { ConfirmationRequest } from '../requests/types.js';

/** The people a decision is checked against, resolved once where it entered the gateway. */
export interface DecisionPeople {
  decider: Decider;
  approvers: ApproverSet;
  /** The people the request was filed for or by (`user_id`, the filing token's person). */
  requesters: readonly string[];
  /** The absentee the decider stands in for, when the list does not name the decider themselves (`people/away.ts`). */
  onBehalfOf?: string | null;
}

/** Why `event` cannot apply to `request` (with a sentence when the generic one would mislead), or null when it may. */
export function checkDecision(
  request: ConfirmationRequest,
  event: DecisionEvent,
  people: DecisionPeople,
  allowSelfApproval: boolean,
): { code: DecisionRejection; message?: string } | null {
  if (event.nonce !== undefined && event.nonce !== request.nonce) return { code: 'bad_nonce' };
  if (request.status !== 'pending')
    return { code: 'already_decided', message: `This request was already ${request.status}.` };
  if (event.argsSha256 !== undefined && event.argsSha256 !== request.argsSha256) return { code: 'args_mismatch' };
  if (event.approvedArgs && event.decision !== 'approve')
    return { code: 'invalid', message: 'Edited arguments go with an approval only.' };
  if (!isListed(people.approvers, people.decider) && !people.onBehalfOf) return { code: 'not_authorized' };
  // Denying one's own request is allowed: a requester may always withdraw consent.
  if (event.decision === 'approve' && !allowSelfApproval) {
    if (isRequester(request, people)) return { code: 'self_approval' };
    // A delegation lends the absentee's say, never more: an absentee's own request is not approved for them either.
    if (people.onBehalfOf && people.requesters.includes(people.onBehalfOf)) {
      return {
        code: 'self_approval',
        message: `${people.decider.person} stands in for ${people.onBehalfOf}, who filed this request: nobody approves their own request through a delegation.`,
      };
    }
    // The token that filed a request may not approve it either (an agent's token never approves its own call).
    if (event.token && !event.token.trusted && request.filedBy === event.token.name) return { code: 'self_approval' };
  }
  return null;
}

/**
 * Whether the decider is the person the request was filed for or by, from any of their accounts. A `user_id` written
 * without its channel prefix (`U0123`) still matches that account (`slack:U0123`), as before the directory.
 */
function isRequester(request: ConfirmationRequest, people: DecisionPeople): boolean {
  if (people.requesters.includes(people.decider.person)) return true;
  const { userId } = request;
  return userId !== null && (userId === people.decider.account || people.decider.account.endsWith(`:${userId}`));
}
