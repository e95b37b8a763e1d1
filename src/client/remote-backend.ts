/**
 * @module client/remote-backend
 * The remote {@link ApprovalBackend}: the approval gate's requests go to a tollgate server through {@link GateClient}.
 * It lives beside the client so that `tollgate/client` users get it without the gateway.
 */
import { asBackendError, fromApiRequest, type ApprovalBackend } from '../hooks/approval-backend.js';
import type { ApiRequest } from '../requests/serialize.js';
import { GateClient, type GateClientOptions } from './gate-client.js';

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

export { fromApiRequest };
