/**
 * @module stores/postgres/settle
 * The one-statement settle's witnessing (`SQL_TEXT.settle`): most votes settle their request (a deny, or an approval
 * where one suffices) in one statement, with no transaction to read the row in first. The verdict token must still be
 * minted from the values that statement commits, before it runs: the vote gives the verdict's fields, and the row's
 * tool and arguments come from the pending rows this process created or read lately (the gateway reads a row before
 * deciding it). They never change, and the statement's WHERE checks them, so a token cannot name another call than
 * the row it settles. A vote on a row not known here takes the transaction instead, which reads it under its lock.
 */
import type { Witness } from '../../audit/witness.js';
import { isAllowed } from '../../requests/state-machine.js';
import type { ConfirmationRequest, NewEvent } from '../../requests/types.js';
import type { VerdictFields } from '../../requests/vote-plan.js';
import { verdictParams } from './verdict-steps.js';
import { WitnessedWrite } from './witnessed.js';

/** Pending rows remembered for the settle; the oldest go first. */
const REMEMBERED = 2000;

/** The parameters of one settle, and the token they commit (null without a witness). */
export interface SettleStatement {
  params: unknown[];
  token: string | null;
}

/** The pending rows lately seen, and the settle's parameters from them; see the module comment. */
export class SettlePlanner {
  private readonly pending = new Map<string, ConfirmationRequest>();

  /** Remembers pending `rows` (the newest {@link REMEMBERED}). */
  remember(rows: readonly (ConfirmationRequest | null)[]): void {
    for (const r of rows) {
      if (!r || r.status !== 'pending') continue;
      this.pending.delete(r.id);
      this.pending.set(r.id, r);
      if (this.pending.size > REMEMBERED) this.pending.delete(this.pending.keys().next().value!);
    }
  }

  /** Forgets a row that settled. */
  forget(id: string): void {
    this.pending.delete(id);
  }

  /**
   * The settle of `id` with `status`, witnessed by `witness`: its event's leaf and receipt, and the token minted from
   * the row as the statement leaves it. Null when a witness needs a row not known here (or a quorum's approval,
   * which the statement never settles).
   */
  plan(
    witness: Witness | null,
    id: string,
    status: 'approved' | 'denied',
    fields: VerdictFields,
    event: NewEvent,
    deadlineNow: Date | null,
  ): SettleStatement | null {
    const known = this.pending.get(id);
    if (witness && (!known || (status === 'approved' && known.requiredApprovals > 1))) return null;
    const write = new WitnessedWrite(witness);
    // The event exactly as the statement inserts it: type, actor, channel and time from the verdict's parameters.
    const { respondedBy: actor, respondedVia: channel, at } = fields;
    const v = write.event(id, { type: status, actor, channel, detail: event.detail, at });
    let token: string | null = null;
    let guard: [string | null, string | null] = [null, null];
    if (known && witness) {
      const settled: ConfirmationRequest = {
        ...known,
        status,
        allowed: isAllowed(status, known.onTimeout) === true,
        respondedAt: at,
        updatedAt: at,
        respondedBy: actor,
        respondedVia: channel,
        respondedByPerson: fields.respondedByPerson ?? null,
        onBehalfOf: fields.onBehalfOf ?? null,
        decisionOption: fields.decisionOption ?? null,
        reason: fields.reason ?? null,
        approvedArgs: fields.approvedArgs ?? null,
      };
      token = witness.verdict(settled);
      // Edited arguments are the token's own (hashed from them); otherwise the row's hash must be the one it names.
      guard = [known.toolName, settled.approvedArgs ? null : known.argsSha256];
    }
    const base = verdictParams(id, status, fields);
    return { params: [...base, v.detail, deadlineNow, v.leaf, ...write.receiptParams(), token, ...guard], token };
  }
}
