/**
 * @module requests/state-machine
 * The pure rules of a request's life: `pending → approved | denied | expired | cancelled`, and a final state never
 * changes. No I/O here; the store applies these rules inside its compare-and-set transactions.
 */
import type { FinalStatus, RequestStatus, TimeoutPolicy } from './types.js';

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
