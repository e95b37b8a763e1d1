/**
 * @module hooks/backends
 * The two {@link ApprovalBackend}s tollgate ships: in process against a {@link Gateway} instance, and remote
 * against a tollgate server through {@link GateClient}. Both are thin: filing, waiting and re-attaching
 * are the gateway's and the client's work; these only translate shapes and mark errors a retry cannot fix.
 */
import { GateClient } from '../client/gate-client.js';
import type { GateClientOptions } from '../client/gate-client.js';
import type { Gateway } from '../gateway.js';
import type { ApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { ApprovalBackend, ApprovalRequestInput, ApprovalVerdict } from './approval-gate.js';

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

/** Options of {@link gatewayBackend}. */
export interface GatewayBackendOptions {
  /** How long one wait on the gateway lasts before it is renewed (default 55 s). */
  waitSliceMs?: number;
}

/**
 * An in-process backend: files through `gateway.request()` and waits with `gateway.wait()`.
 * @example
 * const gate = approvalGate({ backend: gatewayBackend(gateway), tools: ['deploy_*'] });
 */
export function gatewayBackend(gateway: Gateway, options: GatewayBackendOptions = {}): ApprovalBackend {
  const sliceMs = options.waitSliceMs ?? 55_000;
  return {
    async requestAndWait(input, signal) {
      let request: ConfirmationRequest;
      try {
        ({ request } = await gateway.request(toGatewayInput(input)));
      } catch (err) {
        throw asBackendError(err);
      }
      while (request.status === 'pending') {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
        const started = gateway.clock.now();
        request = await gateway.wait(request.id, sliceMs, signal);
        // A stopping gateway releases waiters early with the row unchanged; pause instead of spinning.
        if (request.status === 'pending' && gateway.clock.now() - started < sliceMs / 2) {
          await new Promise<void>((resolve) => gateway.clock.setTimeout(resolve, 1000));
        }
      }
      return {
        requestId: request.id,
        status: request.status,
        allowed: request.allowed === true,
        reason: request.reason,
        respondedBy: request.respondedBy,
        approvedArgs: request.approvedArgs,
      };
    },
    async receipt(requestId, receipt) {
      await gateway.recordReceipt(requestId, { outcome: receipt.outcome, detail: receipt.detail, argsSha256: receipt.args_sha256, actor: 'in-process' });
    },
  };
}

/**
 * A remote backend: files and long-polls a tollgate server over HTTP with {@link GateClient}, which rides out
 * gateway restarts; the idempotency key makes a retried call re-attach to its request.
 * @example
 * const gate = approvalGate({ backend: remoteBackend({ url: 'http://127.0.0.1:8787', token }), tools: ['deploy_*'] });
 */
export function remoteBackend(client: GateClient | GateClientOptions = {}): ApprovalBackend {
  const gate = client instanceof GateClient ? client : new GateClient(client);
  return {
    async requestAndWait(input, signal) {
      let answer: ApiRequest;
      try {
        answer = await gate.requestAndWait(input, { signal });
      } catch (err) {
        throw asBackendError(err);
      }
      return fromApiRequest(answer);
    },
    async receipt(requestId, receipt) {
      await gate.receipt(requestId, receipt);
    },
  };
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

function toGatewayInput(input: ApprovalRequestInput): Parameters<Gateway['request']>[0] {
  return {
    toolName: input.tool_name,
    toolArgs: input.tool_args,
    prompt: input.prompt,
    options: input.options,
    agentId: input.agent_id,
    userId: input.user_id,
    sessionId: input.session_id,
    toolCallId: input.tool_call_id,
    idempotencyKey: input.idempotency_key,
    timeoutS: input.timeout_s,
    onTimeout: input.on_timeout,
    channels: input.channels,
    approvers: input.approvers,
    metadata: input.metadata,
  };
}

function asBackendError(err: unknown): ApprovalBackendError {
  if (err instanceof ApprovalBackendError) return err;
  const error = err instanceof Error ? err : new Error(String(err));
  // Tollgate errors carry an HTTP status (GateClientError: `status`, 0 when no answer came); 4xx will not change on retry.
  const status = (error as { status?: unknown }).status;
  const ownVerdict = (error as { retryable?: unknown }).retryable;
  const retryable = typeof ownVerdict === 'boolean' ? ownVerdict : !(typeof status === 'number' && status >= 400 && status < 500);
  return new ApprovalBackendError(error.message, retryable, { cause: error });
}
