/**
 * @module stores/postgres/expiry
 * `expireDue` on PostgreSQL: one short transaction that claims due rows no other replica holds (`FOR NO KEY UPDATE
 * SKIP LOCKED`, so sweeping replicas and a scan's two lanes split the rows and each row expires once, without waiting
 * on each other), then expires them with their `expired` events, the receipt over those events and each row's verdict
 * token in one statement. The rows are read first so that what is signed is known before it is written: nothing is
 * generated inside SQL from rows the process has not seen (docs/audit.md, "The proof").
 */
import type pg from 'pg';
import type { Witness } from '../../audit/witness.js';
import type { ConfirmationRequest } from '../../requests/types.js';
import { rowToRequest, type RequestRow } from './rows.js';
import { named, SQL_TEXT } from './statements.js';
import { inTransaction } from './transaction.js';
import { WitnessedWrite } from './witnessed.js';

/**
 * Expires up to `limit` due rows as of `deadlineNow` (null: the database's clock), oldest expiry first, and returns
 * them as committed.
 */
export async function expireDue(
  pool: pg.Pool,
  witness: Witness | null,
  deadlineNow: Date | null,
  limit: number,
): Promise<ConfirmationRequest[]> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<RequestRow & { deadlineNow: Date }>(
      named(SQL_TEXT.claimDue, [deadlineNow, limit]),
    );
    if (rows.length === 0) return [];
    const at = rows[0]!.deadlineNow;
    const write = new WitnessedWrite(witness);
    const details: string[] = [];
    const leaves: (string | null)[] = [];
    const expired = rows.map(({ deadlineNow: _, ...row }) => {
      const r: ConfirmationRequest = {
        ...rowToRequest(row),
        status: 'expired',
        respondedAt: at,
        updatedAt: at,
        respondedBy: 'system',
        respondedVia: null,
        allowed: row.onTimeout === 'approve',
      };
      const event = {
        type: 'expired' as const,
        actor: 'system',
        channel: null,
        detail: { on_timeout: r.onTimeout },
        at,
      };
      const v = write.event(r.id, event);
      details.push(v.detail);
      leaves.push(v.leaf);
      write.mint(r);
      return r;
    });
    const [receiptId, ...receipt] = write.receiptParams();
    const ids = expired.map((r) => r.id);
    const params = [ids, at, receiptId, details, leaves, ...receipt, ...write.tokenParams()];
    const { rows: done } = await client.query<{ n: number }>(named(SQL_TEXT.expireClaimed, params));
    if (done[0]?.n !== ids.length) throw new Error(`expired ${done[0]?.n ?? 0} of ${ids.length} rows claimed`);
    return expired;
  });
}
