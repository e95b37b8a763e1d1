/**
 * @module audit/witnessed-approvals
 * A quorum counts only the approvals this gateway witnessed (docs/audit.md, "The proof"). The approval that completes
 * a quorum settles the request, and its verdict token names every approver: if the earlier approvals were trusted as
 * read back, a database writer could insert one `approved` row and let the next real vote mint a token for a call
 * only one person approved. So each earlier approval is read back as `read-back.ts` says — its content still gives a
 * leaf that a receipt, signed by one of this gateway's keys, covers — and one that fails is not counted (the vote's
 * event names it under `unwitnessed`). The check costs one Ed25519 verification per earlier approval, on the votes
 * towards a quorum only.
 */
import type { PriorApproval, UnwitnessedApproval } from '../requests/vote-plan.js';
import { whyUnwitnessed, type WitnessedRow } from './read-back.js';
import type { KeyRing } from './witness.js';

/** An `approved` event read back for a quorum: who and whose seat, as {@link WitnessedRow}. */
export interface ApprovalRow extends PriorApproval, Omit<WitnessedRow, 'actor'> {}

/**
 * The approvals of `rows` that count towards a quorum, in order, and those that do not. Without `keys` (a store
 * opened by a tool that holds no key, which witnesses nothing) every approval counts, as before the proof.
 */
export function witnessedApprovals(
  rows: readonly ApprovalRow[],
  keys: KeyRing | null,
): { counted: PriorApproval[]; uncounted: UnwitnessedApproval[] } {
  const counted: PriorApproval[] = [];
  const uncounted: UnwitnessedApproval[] = [];
  for (const row of rows) {
    const why = keys ? whyUnwitnessed(row, keys) : null;
    if (why) uncounted.push({ actor: row.actor, person: row.person, why });
    else counted.push({ actor: row.actor, person: row.person, onBehalfOf: row.onBehalfOf ?? null });
  }
  return { counted, uncounted };
}
