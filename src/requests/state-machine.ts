/**
 * @module requests/state-machine
 * The pure rules of a request's life: `pending → approved | denied | expired | cancelled`, and a final state never
 * changes. No I/O here; the store applies these rules inside its compare-and-set transactions.
 */
import type { ConfirmationRequest, FinalStatus, RequestStatus, TimeoutPolicy } from './types.js';

/** The transitions that exist, by the cause that makes them. */
export type Transition = 'approve' | 'deny' | 'expire' | 'cancel';

const TARGET: Record<Transition, FinalStatus> = {
  approve: 'approved',
  deny: 'denied',
  expire: 'expired',
  cancel: 'cancelled',
};

/** True when `status` can never change again. */
export function isFinal(status: RequestStatus): status is FinalStatus {
  return status !== 'pending';
}

/**
 * The state a transition leads to from `from`, or null when it is not allowed (every final state is terminal).
 * @example nextStatus('pending', 'approve') // 'approved'; nextStatus('denied', 'approve') // null
 */
export function nextStatus(from: RequestStatus, transition: Transition): FinalStatus | null {
  return from === 'pending' ? TARGET[transition] : null;
}

/**
 * Whether the tool may run in a given state: approved yes; denied and cancelled no; expired as the request's
 * timeout policy says; pending not yet known (null).
 */
export function isAllowed(status: RequestStatus, onTimeout: TimeoutPolicy): boolean | null {
  switch (status) {
    case 'pending':
      return null;
    case 'approved':
      return true;
    case 'expired':
      return onTimeout === 'approve';
    default:
      return false;
  }
}

/** Why an approver may not decide a request, or null when they may. */
export type AuthorizationFailure = 'not_an_approver' | 'self_approval';

/**
 * Whether `actor` may decide `request`: listed approvers only (an empty list lets anyone who sees the card), and
 * the requester may not approve its own request unless `allowSelfApproval`. Denying one's own request is allowed:
 * a requester may always withdraw consent.
 */
export function authorizeApprover(
  request: Pick<ConfirmationRequest, 'approvers' | 'userId'>,
  actor: string,
  decision: 'approve' | 'deny',
  allowSelfApproval: boolean,
): AuthorizationFailure | null {
  if (request.approvers.length > 0 && !request.approvers.some((a) => approverMatches(a, actor))) return 'not_an_approver';
  if (decision === 'approve' && !allowSelfApproval && request.userId && sameIdentity(request.userId, actor)) {
    return 'self_approval';
  }
  return null;
}

/** `slack:*` in an allowlist admits every Slack user; otherwise ids must match exactly. */
function approverMatches(entry: string, actor: string): boolean {
  if (entry.endsWith(':*')) return actor.startsWith(entry.slice(0, -1));
  return entry === actor;
}

/** A requester id may be written with or without its channel prefix (`U0123` or `slack:U0123`). */
function sameIdentity(userId: string, actor: string): boolean {
  return userId === actor || actor.endsWith(`:${userId}`);
}
