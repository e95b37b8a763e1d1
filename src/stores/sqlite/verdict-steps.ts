/**
 * @module stores/sqlite/verdict-steps
 * The steps of a vote's, a cancel's or an expiry's write on SQLite, each run inside the caller's `BEGIN IMMEDIATE`
 * transaction (`request-writes.ts`), as PostgreSQL's are (`../postgres/verdict-steps.ts`): flip the row to its
 * verdict, expire it instead when the vote or cancel came at or after its deadline, and mint the settled row's
 * verdict token. Events go in witnessed (`witnessed-insert.ts`), so the transaction's receipt covers them.
 */
import type Database from 'better-sqlite3';
import { attachVerdictToken } from '../../requests/serialize.js';
import { isAllowed } from '../../requests/state-machine.js';
import type { ConfirmationRequest } from '../../requests/types.js';
import type { PriorApproval, VerdictFields } from '../../requests/vote-plan.js';
import { isoString } from '../../utils/iso-time.js';
import { requestOfValues } from './rows.js';
import type { Statements } from './statements.js';
import type { WitnessedEvents } from './witnessed-insert.js';

/** What the steps run on: the store's prepared statements and its witnessed event insert. */
export interface VerdictStepContext {
  sql: Statements;
  witnessed: WitnessedEvents;
  /** `INSERT INTO verdict_tokens (request_id, token)`. */
  insertToken: Database.Statement;
}

/** The verdict fields a flip writes, `approvedArgs` as the row stores it (JSON text). */
export type FlipFields = Omit<VerdictFields, 'approvedArgs'> & { approvedArgs?: string | null };

/**
 * Mints, stores and attaches the verdict token of `r`, settled in the caller's transaction (needs a witness), naming
 * the `approvals` that made a quorum's verdict (as the vote's plan counted them, never read back unchecked).
 */
export function mint(
  ctx: VerdictStepContext,
  r: ConfirmationRequest,
  approvals: readonly PriorApproval[] = [],
): ConfirmationRequest {
  const witness = ctx.witnessed.witness;
  if (!witness) return r;
  const token = witness.verdict(r, approvals);
  if (token) {
    ctx.insertToken.run(r.id, token);
    attachVerdictToken(r, token);
  }
  return r;
}

/** The compare-and-set. Inside a transaction that already read the row as pending, so it always matches. */
export function flip(
  ctx: VerdictStepContext,
  id: string,
  status: 'approved' | 'denied' | 'expired' | 'cancelled',
  onTimeout: ConfirmationRequest['onTimeout'],
  fields: FlipFields,
  approvals: readonly PriorApproval[] = [],
): ConfirmationRequest {
  const allowed = isAllowed(status, onTimeout) === true;
  const at = isoString(fields.at);
  const row = ctx.sql.flip.get(
    status,
    at,
    at,
    fields.respondedBy,
    fields.respondedVia,
    fields.respondedByPerson ?? null,
    fields.onBehalfOf ?? null,
    fields.decisionOption ?? null,
    fields.reason ?? null,
    fields.approvedArgs ?? null,
    allowed ? 1 : 0,
    id,
  ) as unknown[] | undefined;
  if (!row) throw new Error(`compare-and-set lost on ${id} inside its own transaction`);
  return mint(ctx, requestOfValues(row), approvals);
}

/** Expires `current` (pending, past its deadline) inside the caller's transaction, with its `expired` event. */
export function expireLate(ctx: VerdictStepContext, current: ConfirmationRequest, at: Date): ConfirmationRequest {
  const expired = flip(ctx, current.id, 'expired', current.onTimeout, {
    respondedBy: 'system',
    respondedVia: null,
    at,
  });
  ctx.witnessed.run(current.id, {
    type: 'expired',
    actor: 'system',
    channel: null,
    detail: { on_timeout: current.onTimeout, late_by_ms: at.getTime() - current.expiresAt.getTime() },
    at,
  });
  return expired;
}
