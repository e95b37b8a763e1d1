/**
 * @module client/transport
 * One call of {@link GateClient} to the gateway's API over `fetch`: the bearer token, JSON in and out (or the 2xx
 * response itself, for a verdict stream), the caller's trace context, a time limit per attempt, and retries with
 * backoff while the failure is retryable and time is left. A network failure becomes the client's "unreachable"
 * error (`connection.ts`), an error answer the API's problem document (`errors.ts`).
 */
import { VERSION } from '../version.js';
import { injectTraceHeaders } from '../telemetry/inject.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { unreachableError, type GatewayConnection } from './connection.js';
import { GateClientError, problemFrom } from './errors.js';

/** Told about every retry (for logs): what failed and how long the client sleeps before trying again. */
export type RetryListener = (info: { error: GateClientError; delayMs: number; attempt: number }) => void;

/** How one call is made. */
export interface SendOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Retry retryable failures until this time (ms since epoch); no retries when absent. */
  retryUntil?: number;
  /** Per-attempt time limit in ms. */
  attemptTimeoutMs?: number;
  /** A caller's `traceparent`, sent when this process has no active trace context (`RequestOptions.traceparent`). */
  traceparent?: string;
  /** Answer with the 2xx response itself, its body unread (a stream), and no per-attempt time limit. */
  stream?: boolean;
}

/** A W3C trace context `traceparent` (version 00): anything else is not sent. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

const DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;

/** The client's calls to one gateway; see the module comment. */
export class ApiTransport {
  constructor(
    private readonly connection: GatewayConnection,
    private readonly fetchImpl: typeof fetch,
    private readonly retries: { backoff?: BackoffOptions; onRetry?: RetryListener },
  ) {}

  /** One API call, retried with backoff until `retryUntil` when the failure is retryable. */
  async send<T>(method: string, path: string, options: SendOptions): Promise<T> {
    const backoff = new Backoff(this.retries.backoff);
    for (;;) {
      try {
        return await this.attempt<T>(method, path, options);
      } catch (error) {
        if (!(error instanceof GateClientError) || !error.retryable || options.retryUntil === undefined) throw error;
        const delayMs = backoff.next();
        if (Date.now() + delayMs > options.retryUntil) throw error;
        this.retries.onRetry?.({ error, delayMs, attempt: backoff.attempts });
        await sleep(delayMs, options.signal);
      }
    }
  }

  private async attempt<T>(method: string, path: string, options: SendOptions): Promise<T> {
    const { url, token } = this.connection;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: options.stream ? 'text/event-stream' : 'application/json',
      'user-agent': `tollgate-client/${VERSION}`,
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    // The caller's active span (if its application runs an OpenTelemetry SDK) becomes the parent of the gateway's spans.
    injectTraceHeaders(headers);
    if (!headers.traceparent && options.traceparent && TRACEPARENT.test(options.traceparent))
      headers.traceparent = options.traceparent;
    const timeout = options.stream
      ? undefined
      : AbortSignal.timeout(options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
    const signal = options.signal && timeout ? AbortSignal.any([options.signal, timeout]) : (options.signal ?? timeout);
    let response: Response;
    try {
      response = await this.fetchImpl(`${url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal,
      });
      if (response.status === 204) return null as T;
      if (response.ok) return (options.stream ? response : await response.json()) as T;
    } catch (error) {
      // The caller's own abort is not a network failure: let it through untouched.
      if (options.signal?.aborted) throw options.signal.reason;
      throw unreachableError(url, error);
    }
    const problem = await problemFrom(response);
    throw new GateClientError(problem.detail, response.status, problem);
  }
}
