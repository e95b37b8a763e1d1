/**
 * @module http/long-poll
 * Holding an HTTP call open until a request is final: the one way the request API and the runtime hook routes wait.
 */
import type { ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway.js';
import type { ConfirmationRequest } from '../requests/types.js';

// One shared abort reason: `abort()` without one builds a DOMException, stack trace and all, for every answered call.
const CALLER_GONE = Object.freeze(new Error('the HTTP caller went away'));

/**
 * Resolves with request `id` once it is final, or as it is after `ms`; stops waiting when `res` closes (the caller
 * went away). Holds no copy of the row while it waits — 10,000 parked calls must stay small. `check` sees the row as
 * first read, and refuses it by throwing (`Gateway.wait`).
 */
export function waitUntilFinal(
  gateway: Gateway,
  id: string,
  ms: number,
  res: ServerResponse,
  check?: (request: ConfirmationRequest) => void,
): Promise<ConfirmationRequest> {
  const aborted = new AbortController();
  const abort = () => aborted.abort(CALLER_GONE);
  res.once('close', abort);
  return gateway.wait(id, ms, aborted.signal, check).finally(() => res.off('close', abort));
}

/** {@link waitUntilFinal} for a request just read: a final one (or no time to wait) is answered as it is. */
export function waitWhileConnected(
  gateway: Gateway,
  request: ConfirmationRequest,
  ms: number,
  res: ServerResponse,
): Promise<ConfirmationRequest> {
  if (request.status !== 'pending' || ms <= 0) return Promise.resolve(request);
  return waitUntilFinal(gateway, request.id, ms, res);
}
