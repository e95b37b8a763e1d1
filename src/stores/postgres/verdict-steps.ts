/**
 * @module stores/postgres/verdict-steps
 * The steps of a vote's or a finish's transaction on PostgreSQL, each run on the transaction's client: lock the row
 * (reading the deadline clock's time with it), flip it to its verdict, expire it instead when the vote or cancel came
 * at or after its deadline, and record the event. `PostgresConfirmationStore.decide` and `finish` run them in turn;
 * {@link verdictParams} is shared with the one-statement settle, which needs no transaction. Each step is witnessed
 * by the transaction's {@link WitnessedWrite}: events carry their leaves, a settled row its minted token, and
 * {@link seal} writes the receipt and tokens last, before commit.
 */
import type pg from 'pg';
import { rowToRequest, type RequestRow } from './rows.js';
import { named, rowsOf, SQL_TEXT, type Queryable } from './statements.js';
import { isAllowed } from '../../requests/state-machine.js';
import type { ConfirmationRequest, NewEvent, RequestStatus } from '../../requests/types.js';
import type { PriorApproval, VerdictFields } from '../../requests/vote-plan.js';
import type { WitnessedWrite } from './witnessed.js';

/**
 * Locks the row for a vote or a cancel, and reads the deadline clock's time in the same statement: `deadlineNow` is
 * the caller's time, or null for the database's `now()`.
 */
export async function lockForVote(
  client: pg.PoolClient,
  id: string,
  deadlineNow: Date | null,
): Promise<{ current: ConfirmationRequest; now: Date } | null> {
  const [row] = await rowsOf<RequestRow & { deadlineNow: Date }>(client, SQL_TEXT.byIdForVote, [id, deadlineNow]);
  if (!row) return null;
  const { deadlineNow: now, ...request } = row;
  return { current: rowToRequest(request), now };
}

/** Expires `current` (locked, pending, past its deadline) inside the caller's transaction, with its `expired` event. */
export async function expireLate(
  client: pg.PoolClient,
  write: WitnessedWrite,
  current: ConfirmationRequest,
  now: Date,
): Promise<ConfirmationRequest> {
  const expired = await flip(client, write, current.id, 'expired', current, {
    respondedBy: 'system',
    respondedVia: null,
    at: now,
  });
  const detail = { on_timeout: current.onTimeout, late_by_ms: now.getTime() - current.expiresAt.getTime() };
  await insertEvent(client, write, current.id, { type: 'expired', actor: 'system', channel: null, detail, at: now });
  return expired;
}

/**
 * The compare-and-set, inside a transaction that holds the row locked as pending, so it always matches; the settled
 * row's verdict token is minted from what it returned and the `approvals` the vote's plan counted (a quorum's, each
 * checked as witnessed: never read back unchecked).
 */
export async function flip(
  client: pg.PoolClient,
  write: WitnessedWrite,
  id: string,
  status: 'approved' | 'denied' | 'expired' | 'cancelled',
  current: ConfirmationRequest,
  f: VerdictFields,
  approvals: readonly PriorApproval[] = [],
): Promise<ConfirmationRequest> {
  const [row] = await rowsOf<RequestRow>(client, SQL_TEXT.flip, verdictParams(id, status, f, current.onTimeout));
  if (!row) throw new Error(`compare-and-set lost on ${id} inside its own transaction`);
  const settled = rowToRequest(row);
  if (write.witness) write.mint(settled, approvals);
  return settled;
}

/** Records `e` in the request's audit trail inside the caller's transaction, witnessed by `write`. */
export async function insertEvent(on: Queryable, write: WitnessedWrite, requestId: string, e: NewEvent): Promise<void> {
  const v = write.event(requestId, e);
  await on.query(
    named(SQL_TEXT.insertEvent, [requestId, v.type, v.actor, v.channel, v.detail, v.at, v.leaf, v.receipt_id]),
  );
}

/** The last statement of a witnessed transaction: its signed receipt and minted tokens, when it has any. */
export async function seal(on: Queryable, write: WitnessedWrite): Promise<void> {
  const receipt = write.receiptParams();
  if (receipt[0] === null && write.tokens.size === 0) return;
  await on.query(named(SQL_TEXT.seal, [...receipt, ...write.tokenParams()]));
}

/** The parameters `flip` and `settle` share. A vote's verdict is allowed when approved; only an expiry reads `onTimeout`. */
export function verdictParams(
  id: string,
  status: RequestStatus,
  f: VerdictFields,
  onTimeout: ConfirmationRequest['onTimeout'] = 'deny',
): unknown[] {
  const approvedArgs = f.approvedArgs === undefined || f.approvedArgs === null ? null : JSON.stringify(f.approvedArgs);
  return [
    id,
    status,
    f.at,
    f.respondedBy,
    f.respondedVia,
    f.decisionOption ?? null,
    f.reason ?? null,
    approvedArgs,
    isAllowed(status, onTimeout) === true,
    f.respondedByPerson ?? null,
    f.onBehalfOf ?? null,
  ];
}
