/**
 * @module client/approval-backend
 * The contract between the approval gate and wherever requests go (a gateway in this process, a tollgate server over
 * HTTP), in a file of its own so that neither side imports the other.
 */
import type { ApiRequest, ApiRequestInput } from '../requests/serialize.js';

/** A channel target a request is delivered to, as in the HTTP API (`{ type: 'slack', target: 'C0123' }`). */
export interface ApprovalChannelTarget {
  type: string;
  target?: string;
}

/**
 * What the gate files: the fields of `POST /v1/requests`, snake_case as on the wire. Its `idempotency_key` is derived
 * from the tool call id, so a retried call re-attaches to its request instead of filing a new one.
 */
export type ApprovalRequestInput = ApiRequestInput;

/** A request once it is no longer pending. */
export interface ApprovalVerdict {
  /** The ConfirmationRequest id, when the backend knows it. */
  requestId?: string;
  status: 'approved' | 'denied' | 'expired' | 'cancelled';
  /** Whether the tool may run (approved, or expired with `on_timeout: "approve"`). */
  allowed: boolean;
  /** The approver's reason, if any. */
  reason?: string | null;
  /** Who decided (e.g. `slack:U0123`); null on expiry. */
  respondedBy?: string | null;
  /** Arguments the approver edited, or null to keep the call's own. */
  approvedArgs?: Record<string, unknown> | null;
}

/**
 * Where confirmation requests go. In process, a gateway instance; remotely, a tollgate server over HTTP.
 * @remarks Timeouts, delivery and durability are the backend's business: the gate only asks and waits.
 * Throw an error with `retryable: false` for failures a retry cannot fix (bad input); anything else is
 * retried with the same idempotency key, which is how a wait survives a gateway restart.
 */
export interface ApprovalBackend {
  /** Files (or re-attaches to, by idempotency key) a request and resolves once it is no longer pending. */
  requestAndWait(input: ApprovalRequestInput, signal?: AbortSignal): Promise<ApprovalVerdict>;
  /** Reports how the approved tool ran (event `executed` / `execution_failed`). Optional: backends without it skip receipts. */
  receipt?(requestId: string, receipt: ExecutionReceiptInput): Promise<void>;
}

/** What a receipt says: the outcome, a short detail, and the SHA-256 of the arguments that ran. */
export interface ExecutionReceiptInput {
  outcome: 'succeeded' | 'failed';
  detail?: string;
  args_sha256?: string;
}

/** An error from a backend, saying whether asking again (same idempotency key) may help. */
export class ApprovalBackendError extends Error {
  override name = 'ApprovalBackendError';

  constructor(
    message: string,
    /** False for answers a retry cannot change (bad input, an idempotency key reused with other arguments). */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Wraps any error as an {@link ApprovalBackendError}, deciding from its HTTP status whether a retry may help. */
export function asBackendError(err: unknown): ApprovalBackendError {
  if (err instanceof ApprovalBackendError) return err;
  const error = err instanceof Error ? err : new Error(String(err));
  // Tollgate errors carry an HTTP status (GateClientError: `status`, 0 when no answer came); 4xx will not change on retry.
  const status = (error as { status?: unknown }).status;
  const ownVerdict = (error as { retryable?: unknown }).retryable;
  const retryable =
    typeof ownVerdict === 'boolean' ? ownVerdict : !(typeof status === 'number' && status >= 400 && status < 500);
  return new ApprovalBackendError(error.message, retryable, { cause: error });
}

/** Maps the API's request shape to a verdict. */
export function fromApiRequest(request: ApiRequest): ApprovalVerdict {
  if (request.status === 'pending') throw new ApprovalBackendError(`request ${request.id} is still pending`, true);
  return {
    requestId: request.id,
    status: request.status,
    allowed: request.allowed === true,
    reason: request.reason,
    respondedBy: request.responded_by,
    approvedArgs: request.approved_args,
  };
}
