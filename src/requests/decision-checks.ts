/**
 * @module requests/decision-checks
 * Whether a verified tap or API decision may apply to a request at all, before any vote is counted: the button's
 * nonce, the state, the arguments the approver saw, the allowlist, and self-approval (by identity and by filing token).
 */
import type { DecisionEvent, DecisionRejection } from '../channel.js';
import { authorizeApprover } from './state-machine.js';
import type { ConfirmationRequest } from './types.js';

/** Why `event` cannot apply to `request` (with a sentence when the generic one would mislead), or null when it may. */
export function checkDecision(request: ConfirmationRequest, event: DecisionEvent, allowSelfApproval: boolean): { code: DecisionRejection; message?: string } | null {
  if (event.nonce !== undefined && event.nonce !== request.nonce) return { code: 'bad_nonce' };
  if (request.status !== 'pending') return { code: 'already_decided', message: `This request was already ${request.status}.` };
  if (event.argsSha256 !== undefined && event.argsSha256 !== request.argsSha256) return { code: 'args_mismatch' };
  if (event.approvedArgs && event.decision !== 'approve') return { code: 'invalid', message: 'Edited arguments go with an approval only.' };
  const actor = `${event.actor.channel}:${event.actor.userId}`;
  const denied = authorizeApprover(request, actor, event.decision, allowSelfApproval);
  if (denied) return { code: denied === 'self_approval' ? 'self_approval' : 'not_authorized' };
  // The token that filed a request may not approve it either (an agent's token never approves its own call).
  const filedBySameToken = event.token && !event.token.trusted && request.filedBy === event.token.name;
  if (filedBySameToken && event.decision === 'approve' && !allowSelfApproval) return { code: 'self_approval' };
  return null;
}
