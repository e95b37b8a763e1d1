/**
 * @module audit/request-check
 * A request row against its witnessed events and its stored verdict token: what `audit verify` checks of every
 * request (columns: `requests/coverage.ts`).
 */
import { isDeepStrictEqual } from 'node:util';
import { argsMismatch, ASKED_COLUMNS, askedMismatch, decidedMismatch } from '../requests/coverage.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../requests/types.js';
import { verdictClaims } from '../signing/verdict.js';
import type { CoverageMark } from './types.js';
import type { KeyRing } from './witness.js';

const FINAL_EVENTS = new Set(['approved', 'denied', 'expired', 'cancelled']);

/** Why a request row disagrees with its chained events: the column, when one is to blame, and a sentence. */
export interface RowMismatch {
  kind: 'request_mismatch' | 'unchained';
  column: string | null;
  message: string;
}

/**
 * Why `request` disagrees with its events, or null when every column the chain covers agrees (`coverage.ts`). Events
 * at or before `coverage` (written before the chain covered every column) are checked as before: status, responder
 * and approved arguments only. A row with no `created` event is unchained, unless it was filed before `coverage`.
 */
export function requestMismatch(
  request: ConfirmationRequest,
  events: readonly ConfirmationEvent[],
  coverage: CoverageMark | null = null,
): RowMismatch | null {
  const mismatch = (column: string | null, message: string): RowMismatch => ({
    kind: 'request_mismatch',
    column,
    message,
  });
  const covered = (e: ConfirmationEvent): boolean => !coverage || e.id > coverage.eventId;
  const created = events.find((e) => e.type === 'created');
  if (!created && !(coverage && request.createdAt.getTime() <= coverage.at.getTime())) {
    return {
      kind: 'unchained',
      column: null,
      message: 'the row has no chained `created` event: it was written around tollgate',
    };
  }
  if (created && covered(created)) {
    if (created.detail.asked === undefined)
      return {
        kind: 'unchained',
        column: null,
        message: `its created event ${created.id} carries no digest of what was asked: it was written around tollgate`,
      };
    // The newest digest holds: an escalation (`store.escalate`) widens the approvers and writes one.
    const asked = [...events]
      .reverse()
      .find((e) => (e.type === 'escalated' || e.type === 'created') && e.detail.asked !== undefined);
    if (argsMismatch(request))
      return mismatch(
        'tool_args',
        "the row's tool_args do not hash to its chained args_sha256 (the arguments were edited)",
      );
    const columns = asked ? askedMismatch(request, asked.detail.asked) : [];
    if (columns.length)
      return mismatch(
        columns[0]!,
        `the row's ${columns.join(', ')} differ${columns.length === 1 ? 's' : ''} from what event ${asked!.id} recorded`,
      );
  }
  const final = events.filter(
    (e) => FINAL_EVENTS.has(e.type) && (e.type !== 'approved' || isSettlingApproval(e, request)),
  );
  const verdict = final[0];
  if (request.status === 'pending')
    return verdict ? mismatch('status', `the row says pending, but event ${verdict.id} made it ${verdict.type}`) : null;
  if (!verdict) return mismatch('status', `the row says ${request.status}, but no event made it so`);
  if (final.length > 1) return mismatch('status', `events ${final.map((e) => e.id).join(' and ')} both settle it`);
  if (verdict.type !== request.status)
    return mismatch('status', `the row says ${request.status}, but event ${verdict.id} made it ${verdict.type}`);
  if ((verdict.actor ?? null) !== (request.respondedBy ?? null))
    return mismatch(
      'responded_by',
      `the row says ${request.respondedBy ?? 'nobody'} decided, but event ${verdict.id} says ${verdict.actor ?? 'nobody'}`,
    );
  const approvedArgs = verdict.type === 'approved' ? (verdict.detail.approved_args ?? null) : null;
  if (!isDeepStrictEqual(approvedArgs, request.approvedArgs ?? null))
    return mismatch('approved_args', `the row's approved arguments differ from those event ${verdict.id} recorded`);
  const decided = covered(verdict) ? decidedMismatch(request, verdict) : null;
  if (decided) {
    const [column, row, event] = decided;
    return mismatch(
      column,
      `the row's ${column} is ${JSON.stringify(row)}, but event ${verdict.id} recorded ${JSON.stringify(event)}`,
    );
  }
  return null;
}

/**
 * Why the stored verdict token of a final `request` does not hold, or null when it does: signed by one of `keys`,
 * for this request, and saying what the row and its events say (tool, arguments, allowed, who, when). The token's
 * lifetime is the gateway's setting, so `exp` is not compared.
 */
export function tokenMismatch(
  request: ConfirmationRequest,
  events: readonly ConfirmationEvent[],
  token: string,
  keys: KeyRing,
): string | null {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return 'its stored verdict token is not a compact JWS';
  let kid: string;
  let claims: Record<string, unknown>;
  try {
    kid = String((JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid?: unknown }).kid);
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  } catch {
    return 'its stored verdict token is not readable JSON';
  }
  const why = keys.checkJws(kid, `${header}.${payload}`, signature);
  if (why) return `its stored verdict token: ${why}`;
  const expected = verdictClaims(request, 0, events) as unknown as Record<string, unknown>;
  for (const name of ['jti', 'tool', 'args_sha256', 'allowed', 'people', 'accounts', 'iat'])
    if (!isDeepStrictEqual(claims[name], expected[name]))
      return `its stored verdict token says ${name} ${JSON.stringify(claims[name])}, the row ${JSON.stringify(expected[name])}`;
  return null;
}

/** An `approved` event settles its request when it completes the quorum (events before the quorum name no `approvals`). */
function isSettlingApproval(event: ConfirmationEvent, request: ConfirmationRequest): boolean {
  const approvals = event.detail.approvals;
  return typeof approvals !== 'number' || approvals >= request.requiredApprovals;
}

/**
 * The column of a request that changed after filing, when its `created` event's leaf no longer matches because of it:
 * the event's digest of what was asked names it (null when the event itself was edited, or every column differs).
 */
export async function editedColumns(
  store: ConfirmationStore,
  requestId: string,
  detailText: unknown,
): Promise<string[]> {
  const request = await store.get(requestId);
  let asked: unknown;
  try {
    asked = (JSON.parse(String(detailText)) as { asked?: unknown }).asked;
  } catch {
    asked = undefined;
  }
  const columns = request && asked !== undefined ? askedMismatch(request, asked) : [];
  return columns.length === ASKED_COLUMNS.length ? [] : columns;
}
