/**
 * @module audit/witnessed-approvals
 * A quorum counts only the approvals this gateway witnessed (docs/audit.md, "The proof"). The approval that completes
 * a quorum settles the request, and its verdict token names every approver: if the earlier approvals were trusted as
 * read back, a database writer could insert one `approved` row and let the next real vote mint a token for a call
 * only one person approved. So each earlier approval is checked as `audit verify` checks it — its content still gives
 * a leaf that a receipt, signed by one of this gateway's keys, covers — and one that fails is not counted (the vote's
 * event names it under `unwitnessed`). The check costs one Ed25519 verification per earlier approval, on the votes
 * towards a quorum only.
 */
import type { PriorApproval } from '../requests/vote-plan.js';
import { leafOfColumns } from './leaf.js';
import type { KeyRing } from './witness.js';

/** An `approved` event read back for a quorum: who and whose seat, its stored columns and the receipt it names. */
export interface ApprovalRow extends PriorApproval {
  requestId: string;
  type: string;
  channel: string | null;
  /** The detail as stored (JSON text). */
  detail: string;
  /** ISO-8601 with milliseconds, as the leaf was computed. */
  at: string;
  /** The receipt the row names, as stored (all null when it names none, or the receipt is gone). */
  receiptId: string | null;
  kid: string | null;
  receiptAt: string | null;
  /** Comma-separated leaves. */
  leaves: string | null;
  signature: string | null;
}

/** An approval that was not counted, and why. */
export interface UncountedApproval {
  actor: string;
  person: string;
  why: string;
}

/** Why `row` cannot be relied on as witnessed by a holder of `keys`, or null when it can. */
export function whyUnwitnessed(row: ApprovalRow, keys: KeyRing): string | null {
  const { receiptId, kid, receiptAt, leaves, signature } = row;
  if (!receiptId || !kid || !receiptAt || leaves === null || !signature) return 'covered by no signed receipt';
  const leaf = leafOfColumns([row.requestId, row.type, row.actor, row.channel, row.detail, row.at]);
  const signed = leaves ? leaves.split(',') : [];
  if (!signed.includes(leaf)) return `receipt ${receiptId} did not sign it (written or edited around tollgate)`;
  return keys.checkReceipt({ id: receiptId, kid, at: receiptAt, leaves: signed, signature });
}

/**
 * The approvals of `rows` that count towards a quorum, in order, and those that do not. Without `keys` (a store
 * opened by a tool that holds no key, which witnesses nothing) every approval counts, as before the proof.
 */
export function witnessedApprovals(
  rows: readonly ApprovalRow[],
  keys: KeyRing | null,
): { counted: PriorApproval[]; uncounted: UncountedApproval[] } {
  const counted: PriorApproval[] = [];
  const uncounted: UncountedApproval[] = [];
  for (const row of rows) {
    const why = keys ? whyUnwitnessed(row, keys) : null;
    if (why) uncounted.push({ actor: row.actor, person: row.person, why });
    else counted.push({ actor: row.actor, person: row.person, onBehalfOf: row.onBehalfOf ?? null });
  }
  return { counted, uncounted };
}
