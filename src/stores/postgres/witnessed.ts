/**
 * @module stores/postgres/witnessed
 * What a PostgreSQL write signs (docs/audit.md, "The proof"), as SQLite's `witnessed-insert.ts` does: every event goes
 * in with its leaf, computed here from the values inserted (`canonicalJson(detail)`, the ISO `at`, a `created`
 * event's request fields), and the id of its statement's or transaction's batch receipt; the receipt over those leaves
 * is signed before the write commits and inserted by it. The verdict token of each request the write settles is
 * minted from the values committed and stored by the same write. Nothing here reads a row back to sign it.
 *
 * A write takes no chain-wide lock and no place in the chain: the integrator orders events after commit
 * (`audit/integrator.ts`, `audit-integration.ts`).
 */
import type { ChainedRequestFields } from '../../audit/encoding.js';
import { storedEvent } from '../../audit/leaf.js';
import type { Receipt, Witness } from '../../audit/witness.js';
import { attachVerdictToken } from '../../requests/serialize.js';
import type { ConfirmationRequest, NewEvent } from '../../requests/types.js';
import { isoString } from '../../utils/iso-time.js';

/** An event as it is inserted: its detail as canonical JSON text, its time as ISO text, its leaf and receipt. */
export interface EventValues {
  request_id: string;
  type: string;
  actor: string | null;
  channel: string | null;
  detail: string;
  at: string;
  leaf: string | null;
  receipt_id: string | null;
}

/** The fields a `created` event's leaf covers, from the request being inserted (as PostgreSQL stores them). */
export function chainedFieldsOf(r: ConfirmationRequest): ChainedRequestFields {
  return {
    toolName: r.toolName,
    argsSha256: r.argsSha256,
    requiredApprovals: String(r.requiredApprovals),
    onTimeout: r.onTimeout,
    createdAt: isoString(r.createdAt),
    expiresAt: isoString(r.expiresAt),
    userId: r.userId,
    agentId: r.agentId,
    filedBy: r.filedBy,
  };
}

/** The receipt's five columns (`audit_receipts`), all null when there is nothing to sign. */
export type ReceiptParams = [
  id: string | null,
  kid: string | null,
  at: string | null,
  leaves: string | null,
  sig: string | null,
];

/**
 * The witnessed part of one write (a statement, or a transaction): the events it inserts, the receipt over their
 * leaves and the tokens it mints. Without a witness (a tool that holds no key) events go in with no leaf or receipt.
 */
export class WitnessedWrite {
  private readonly receiptId: string | null;
  private readonly leaves: string[] = [];
  /** Tokens minted, by request id, in the order minted. */
  readonly tokens = new Map<string, string>();

  constructor(readonly witness: Witness | null) {
    this.receiptId = witness ? witness.receiptId() : null;
  }

  /** The values of `e` as inserted, its leaf counted in the receipt. A `created` event needs its request's fields. */
  event(requestId: string, e: NewEvent, request?: ChainedRequestFields): EventValues {
    const { detail, at, leaf } = storedEvent(requestId, e, request ?? null, this.witness !== null);
    if (leaf) this.leaves.push(leaf);
    return {
      request_id: requestId,
      type: e.type,
      actor: e.actor,
      channel: e.channel,
      detail,
      at,
      leaf,
      receipt_id: leaf && this.receiptId,
    };
  }

  /**
   * Mints the verdict token of `r` as it is being committed (`approvals`: a quorum's approvals, in order), keeps it
   * for {@link tokenParams} and attaches it to `r`. Returns the token, or null (no witness, or no verdict).
   */
  mint(r: ConfirmationRequest, approvals: readonly { actor: string; person: string }[] = []): string | null {
    const token = this.witness?.verdict(r, approvals) ?? null;
    if (token) {
      this.tokens.set(r.id, token);
      attachVerdictToken(r, token);
    }
    return token;
  }

  /** The signed receipt over the leaves added so far, or null when there are none: signed last, just before commit. */
  seal(): Receipt | null {
    if (!this.witness || !this.receiptId || this.leaves.length === 0) return null;
    return this.witness.receipt(this.receiptId, new Date().toISOString(), this.leaves);
  }

  /** {@link seal}'s receipt as the five parameters of an `audit_receipts` insert. */
  receiptParams(): ReceiptParams {
    const r = this.seal();
    return r ? [r.id, r.kid, r.at, r.leaves.join(','), r.signature] : [null, null, null, null, null];
  }

  /** The minted tokens as two arrays (request ids, tokens) for `unnest`. */
  tokenParams(): [string[], string[]] {
    return [[...this.tokens.keys()], [...this.tokens.values()]];
  }
}
