/**
 * @module client/remote-backend
 * The remote {@link ApprovalBackend}: the approval gate's requests go to a tollgate server through {@link GateClient}.
 * It lives beside the client so that `tollgate/client` users get it without the gateway.
 */
import { ApprovalBackendError, asBackendError, fromApiRequest, type ApprovalBackend } from './approval-backend.js';
import type { ApiRequest } from '../requests/serialize.js';
import { GateClient, type GateClientOptions } from './gate-client.js';
import { verdictProblem, type VerdictKeys } from './verdict-check.js';

/** Options of {@link remoteBackend} beyond the client. */
export interface RemoteBackendOptions {
  /**
   * Trust an approval only when its signed `verdict_token` verifies, with these keys (the real gateway's
   * `jwksUrl`, or its `keys`), for the call the approval gate will make: see {@link remoteBackend}.
   */
  requireVerdict?: VerdictKeys;
}

/**
 * A remote backend: files and long-polls a tollgate server over HTTP with {@link GateClient}, which rides out
 * gateway restarts; the idempotency key makes a retried call re-attach to its request.
 *
 * With `requireVerdict`, the call checked is the one the approval gate makes from the verdict: the tool it filed
 * (`tool_name` of the input), under the request id the filing was answered with, with the approver's
 * `approved_args` when the answer has an object there (the gate answers `modify` with them) or else the filed
 * `tool_args`. Names, ids and arguments are never taken from the answer unchecked; a verdict for another tool,
 * request or argument set throws a non-retryable {@link ApprovalBackendError}, which the gate turns into a block.
 * @example
 * const gate = approvalGate({ backend: remoteBackend({ url: 'http://127.0.0.1:8787', token }), tools: ['deploy_*'] });
 */
export function remoteBackend(
  client: GateClient | GateClientOptions = {},
  options: RemoteBackendOptions = {},
): ApprovalBackend {
  const gate = client instanceof GateClient ? client : new GateClient(client);
  return {
    async requestAndWait(input, signal) {
      let filed: ApiRequest;
      let answer: ApiRequest;
      try {
        // Filed and waited in two steps, so the id a verdict's `jti` must match is the one the filing got.
        filed = await gate.request(input, { signal });
        answer = filed.status === 'pending' ? await gate.wait(filed.id, { signal }) : filed;
      } catch (err) {
        throw asBackendError(err);
      }
      const verdict = { ...fromApiRequest(answer), requestId: filed.id };
      if (!options.requireVerdict || !verdict.allowed) return verdict;
      const approved = answer.approved_args;
      const args = approved && typeof approved === 'object' ? approved : (input.tool_args ?? {});
      const problem = await verdictProblem(
        answer,
        { requestId: filed.id, toolName: input.tool_name, args },
        options.requireVerdict,
      );
      if (problem) throw new ApprovalBackendError(`no valid verdict for request ${filed.id}: ${problem}`, false);
      return verdict;
    },
    async receipt(requestId, receipt) {
      await gate.receipt(requestId, receipt);
    },
  };
}

export { fromApiRequest };
