/**
 * @module audit/read-back
 * What a gateway may rely on when it reads an event back to act on it (docs/audit.md, "The proof"): only an event
 * whose content still gives a leaf that a receipt signed by one of this gateway's keys covers. A quorum's earlier
 * approvals (`witnessed-approvals.ts`) and a standing grant's `grant_created` event (`witnessed-grants.ts`) are read
 * back this way; a row that fails was written or edited around tollgate, and is not acted on. One Ed25519
 * verification per event checked.
 */
import type { ChainedEvent } from './encoding.js';
import { leafOfColumns } from './leaf.js';
import type { KeyRing } from './witness.js';

/** An event as read back (its columns as the chain encodes them; never a `created` event), with its receipt. */
export interface WitnessedRow extends Omit<ChainedEvent, 'request'> {
  /** The receipt the row names, as stored (all null when it names none, or the receipt is gone). */
  receiptId: string | null;
  kid: string | null;
  receiptAt: string | null;
  /** Comma-separated leaves. */
  leaves: string | null;
  signature: string | null;
}

/** The columns of {@link WitnessedRow} past the event's own, as both stores select them (`r` is the receipt). */
export const RECEIPT_COLUMNS = 'r.id AS "receiptId", r.kid, r.at AS "receiptAt", r.leaves, r.signature';

/** Why `row` cannot be relied on as witnessed by a holder of `keys`, or null when it can. */
export function whyUnwitnessed(row: WitnessedRow, keys: KeyRing): string | null {
  const { receiptId, kid, receiptAt, leaves, signature } = row;
  if (!receiptId || !kid || !receiptAt || leaves === null || !signature) return 'covered by no signed receipt';
  const leaf = leafOfColumns([row.requestId, row.type, row.actor, row.channel, row.detail, row.at]);
  const signed = leaves ? leaves.split(',') : [];
  if (!signed.includes(leaf)) return `receipt ${receiptId} did not sign it (written or edited around tollgate)`;
  return keys.checkReceipt({ id: receiptId, kid, at: receiptAt, leaves: signed, signature });
}
