/**
 * @module requests/receipts
 * Execution receipts: what a runtime reports after the tool ran, turned into the `executed` / `execution_failed`
 * audit event that sits beside the proposed and approved arguments.
 */
import { argsSha256 } from './args-hash.js';
import type { ConfirmationRequest, NewEvent } from './types.js';

/**
 * The events that are receipts, as SQL: the condition of each store's partial index of receipts (migrations: SQLite
 * 0011, PostgreSQL 0013), which a query must repeat word for word for SQLite to see that the index holds every row it
 * asks for.
 */
export const RECEIPT_TYPES_SQL = "type IN ('executed', 'execution_failed')";

/** What `POST /v1/requests/:id/receipt` reports after the tool ran. */
export interface ExecutionReceipt {
  outcome: 'succeeded' | 'failed';
  /** Free text or a short structured result (no secrets: it is stored in the audit trail). */
  detail?: string;
  /** SHA-256 of the arguments that actually ran (same canonical form as `args_sha256`). */
  argsSha256?: string;
  /** Who reports: `token:<name>`. */
  actor: string;
}

/**
 * The event a receipt records. `args_match` says whether the arguments that ran (by their SHA-256) are the approved
 * ones (the approver's edit when there was one); `allowed` is the request's, so a tool that ran without an approval
 * stands out.
 */
export function receiptEvent(
  request: ConfirmationRequest,
  receipt: ExecutionReceipt,
  at: Date,
): NewEvent & { detail: Record<string, unknown> } {
  const approvedSha = request.approvedArgs ? argsSha256(request.toolName, request.approvedArgs) : request.argsSha256;
  const detail: Record<string, unknown> = {
    ...(receipt.detail !== undefined ? { detail: receipt.detail } : {}),
    allowed: request.allowed,
    ...(receipt.argsSha256 !== undefined
      ? {
          args_sha256: receipt.argsSha256,
          approved_args_sha256: approvedSha,
          args_match: receipt.argsSha256 === approvedSha,
        }
      : {}),
  };
  return {
    type: receipt.outcome === 'succeeded' ? 'executed' : 'execution_failed',
    actor: receipt.actor,
    channel: 'api',
    detail,
    at,
  };
}
