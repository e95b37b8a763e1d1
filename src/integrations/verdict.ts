/**
 * @module integrations/verdict
 * One reading of a request's outcome for every runtime adapter: may the call run, with which arguments, and a
 * sentence saying why. The sentence is written for the model (Claude Code shows it to the model on a deny), so it
 * names who decided and what to do next.
 */
import type { ApiRequest } from '../requests/serialize.js';

/** What a runtime needs to act on a request. */
export interface Verdict {
  /** `allow`: run the call; `deny`: do not; `pending`: nobody has decided yet (the caller stopped waiting). */
  outcome: 'allow' | 'deny' | 'pending';
  /** Arguments an approver edited, to run instead of the original ones. */
  updatedArgs: Record<string, unknown> | null;
  /** Why, in one or two sentences. */
  reason: string;
}

/**
 * Reads the verdict of a request as returned by the API.
 * @example verdictOf(await gate.wait(id)).outcome === 'allow'
 */
export function verdictOf(request: ApiRequest): Verdict {
  const by = request.responded_by ?? 'an approver';
  const why = request.reason ? `: ${request.reason}` : '.';
  const ref = `(tollgate request ${request.id})`;
  switch (request.status) {
    case 'approved': {
      const edited = request.approved_args !== null;
      return {
        outcome: 'allow',
        updatedArgs: request.approved_args,
        reason: `Approved by ${by}${edited ? ' with edited arguments' : ''}${why}`,
      };
    }
    case 'denied':
      return {
        outcome: 'deny',
        updatedArgs: null,
        reason: `Denied by ${by}${why} Do not retry this call or work around it; ask the user what to do instead.`,
      };
    case 'expired':
      return request.allowed
        ? {
            outcome: 'allow',
            updatedArgs: null,
            reason: `No approver answered in time; allowed by this request's on_timeout policy ${ref}.`,
          }
        : {
            outcome: 'deny',
            updatedArgs: null,
            reason: `No approver answered in time, so the call was denied by default ${ref}.`,
          };
    case 'cancelled':
      return {
        outcome: 'deny',
        updatedArgs: null,
        reason: `The approval request was cancelled${request.reason ? `: ${request.reason}` : ''} ${ref}.`,
      };
    case 'pending':
      return {
        outcome: 'pending',
        updatedArgs: null,
        reason:
          `Still waiting for a human to approve this call ${ref}; it expires at ${request.expires_at}. ` +
          'Make the same call again later to pick up the verdict: it re-attaches to this request instead of asking again.',
      };
  }
}
