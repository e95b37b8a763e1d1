/**
 * @module gateway/callback-job
 * The scheduler's runtime-callback job (`jobs.ts` hands it here): POSTs a decided request to its `callback_url`,
 * signed when the gateway has a callback secret ({@link signCallback}), and records `callback_sent` or
 * `callback_failed`; a failure throws, so the scheduler retries.
 */
import { createHmac } from 'node:crypto';
import { describeError } from '../api/errors.js';
import { toApiRequest } from '../requests/serialize.js';
import type { ConfirmationStore } from '../requests/store.js';
import { JobNotNeededError, type JobAttempt } from '../scheduler/types.js';
import type { Clock } from '../utils/clock.js';
import { postOutbound } from '../utils/outbound.js';

/** What the callback job needs: the store and clock, the signing key and allowed hosts, and where outcomes go. */
export interface CallbackJobDeps {
  store: ConfirmationStore;
  clock: Clock;
  callbackSecret?: string;
  callbackAllow?: readonly string[];
  report(ok: boolean): void;
}

/** Calls the runtime back about `requestId`; see the module comment. */
export async function callRuntimeBack(deps: CallbackJobDeps, requestId: string, attempt: JobAttempt): Promise<void> {
  const request = await deps.store.get(requestId);
  if (!request?.callbackUrl) throw new JobNotNeededError(`request ${requestId} has no callback_url`);
  const body = JSON.stringify({ type: 'confirmation.decided', request: toApiRequest(request) });
  const timestamp = Math.floor(deps.clock.now() / 1000).toString();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-tollgate-timestamp': timestamp,
    'x-tollgate-request-id': requestId,
  };
  if (deps.callbackSecret) headers['x-tollgate-signature'] = signCallback(deps.callbackSecret, timestamp, body);
  let error: string | null = null;
  let status: number | null = null;
  try {
    // Checked against the address actually connected to; a signed webhook is never re-posted elsewhere: a redirect
    // is a failure, not a new target.
    status = await postOutbound(request.callbackUrl, { headers, body }, deps.callbackAllow ?? []);
    if (status >= 300 && status < 400) error = `HTTP ${status}: redirects are not followed`;
    else if (status < 200 || status > 299) error = `HTTP ${status}`;
  } catch (e) {
    error = describeError(e);
  }
  const at = new Date(deps.clock.now());
  if (error === null) {
    await deps.store.appendEvent(requestId, {
      type: 'callback_sent',
      actor: null,
      channel: null,
      detail: { status, attempt: attempt.attempt },
      at,
    });
    deps.report(true);
    return;
  }
  await deps.store.appendEvent(requestId, {
    type: 'callback_failed',
    actor: null,
    channel: null,
    detail: { status, error, attempt: attempt.attempt, will_retry: !attempt.isLastAttempt },
    at,
  });
  deps.report(false);
  throw new Error(`callback to runtime failed: ${error}`);
}

/**
 * The signature of a runtime callback: `v1=` + hex HMAC-SHA256(secret, `${timestamp}.${body}`), sent as
 * `X-Tollgate-Signature` with `X-Tollgate-Timestamp`.
 */
export function signCallback(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
