/**
 * @module hooks/gateway-backend
 * The in-process {@link ApprovalBackend}: files through a {@link Gateway} instance in this process and waits on it.
 */
import type { Gateway } from '../gateway/gateway.js';
import { fromApiInput, toApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { asBackendError, fromApiRequest, type ApprovalBackend } from '../client/approval-backend.js';

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
        ({ request } = await gateway.request(fromApiInput(input)));
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
      return fromApiRequest(toApiRequest(request));
    },
    async receipt(requestId, receipt) {
      await gateway.recordReceipt(requestId, {
        outcome: receipt.outcome,
        detail: receipt.detail,
        argsSha256: receipt.args_sha256,
        actor: 'in-process',
      });
    },
  };
}
