/**
 * @module client/gate-client
 * `GateClient`: the HTTP client agent runtimes use to ask for approval and wait for the verdict. Its inputs are
 * typed from the API's zod schemas and its results are the API's request shape, so client and server cannot drift.
 * Waiting is a long-poll loop over `GET /v1/requests/:id?wait=55` that rides out gateway restarts and network
 * errors with backoff: the request lives in the gateway's database, so reconnecting picks up where it left off.
 * How each call goes over the wire (headers, trace context, time limits, retries) is `transport.ts`.
 */
import type { z } from 'zod';
import type { cancelSchema, CreateRequestInput, decisionSchema, listQuerySchema } from '../api/api-schema.js';
import type { ApiEvent, ApiRequest } from '../requests/serialize.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { gatewayConnection } from './connection.js';
import { waitForVerdicts, type WaitManyOptions } from './verdicts.js';
import { GateClientError } from './errors.js';
import { ApiTransport, type RetryListener, type SendOptions } from './transport.js';

/** What `decide()` sends (`POST /v1/requests/:id/decision`). */
export type DecisionInput = z.input<typeof decisionSchema>;
/** What `cancel()` sends (`POST /v1/requests/:id/cancel`). */
export type CancelInput = z.input<typeof cancelSchema>;

/** The filters of `list()` (`GET /v1/requests`). */
export type ListQuery = z.input<typeof listQuerySchema>;
/** A token as `GET /v1/tokens` lists it (never its secret). */
export interface ApiTokenInfo {
  id: string;
  name: string;
  scopes: string[];
  as: string | null;
  /** The person the token speaks for (self-approval compares it), or null. */
  person: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** A page of `list()`, newest first. */
export interface ApiRequestPage {
  items: ApiRequest[];
  next_cursor: string | null;
}

/** Where the gateway is and how to talk to it. */
export interface GateClientOptions {
  /** Base URL of the gateway; default `TOLLGATE_URL`, else `http://127.0.0.1:8787`. */
  url?: string;
  /** API bearer token; default `TOLLGATE_TOKEN`. Required one way or the other. */
  token?: string;
  /** The environment to read `TOLLGATE_URL`/`TOLLGATE_TOKEN` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Seconds each long-poll asks the gateway to hold (default and maximum 55: under common 60 s proxy limits). */
  pollSeconds?: number;
  /** Reconnect delays after network errors and 5xx answers. */
  backoff?: BackoffOptions;
  /** Told about every retry (for logs): what failed and how long the client sleeps before trying again. */
  onRetry?: RetryListener;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/** Options of {@link GateClient.wait}. */
export interface WaitOptions {
  /** Give up after this long and return the request as last seen (still `pending`). Default: wait until final. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Options of {@link GateClient.request}. */
export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * How long to keep retrying when the gateway cannot be reached (default 30 s). Only requests with an
   * `idempotency_key` are retried: without one a retry could file the request twice.
   */
  retryForMs?: number;
  /**
   * The W3C `traceparent` of a caller whose trace is not this process's active context (an MCP client's
   * `params._meta.traceparent`): the gateway's create span becomes its child. The active context wins when there is one.
   */
  traceparent?: string;
}

/**
 * A client of the tollgate HTTP API.
 * @example
 * const gate = new GateClient(); // TOLLGATE_URL + TOLLGATE_TOKEN
 * const verdict = await gate.requestAndWait({ tool_name: 'deploy', tool_args: { env: 'prod' }, timeout_s: 600 });
 * if (verdict.allowed) await deploy(verdict.approved_args ?? { env: 'prod' });
 */
export class GateClient {
  /** The gateway's base URL, without a trailing slash. */
  readonly url: string;
  private readonly pollSeconds: number;
  /** Each call's headers, time limit and retries (`transport.ts`). */
  private readonly transport: ApiTransport;

  constructor(private readonly options: GateClientOptions = {}) {
    const connection = gatewayConnection(options);
    this.url = connection.url;
    this.pollSeconds = Math.min(Math.max(options.pollSeconds ?? 55, 1), 55);
    this.transport = new ApiTransport(connection, options.fetch ?? fetch, options);
  }

  /**
   * Files a request (`POST /v1/requests`). With an `idempotency_key`, asking again returns the request filed
   * first, whatever its status — that is how a caller re-attaches after a restart or a host timeout.
   */
  async request(input: CreateRequestInput, options: RequestOptions = {}): Promise<ApiRequest> {
    const retryUntil = input.idempotency_key ? Date.now() + (options.retryForMs ?? 30_000) : undefined;
    return this.send<ApiRequest>('POST', '/v1/requests', {
      body: input,
      signal: options.signal,
      retryUntil,
      traceparent: options.traceparent,
    });
  }

  /** Reads a request as it is now. */
  async get(id: string, options: { signal?: AbortSignal } = {}): Promise<ApiRequest> {
    return this.send<ApiRequest>('GET', `/v1/requests/${encodeURIComponent(id)}`, { signal: options.signal });
  }

  /**
   * Waits for a verdict: long-polls until the request leaves `pending`, reconnecting with backoff when the gateway
   * restarts or the network fails. With `timeoutMs`, returns the request as last seen (`pending`) once that time is
   * up. Throws {@link GateClientError} for answers that retrying cannot fix (401, 404), or when the gateway was
   * never reached before the time ran out.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<ApiRequest> {
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    const backoff = new Backoff(this.options.backoff);
    let last: ApiRequest | undefined;
    for (;;) {
      const remainingMs = deadline - Date.now();
      const waitS = Math.max(0, Math.floor(Math.min(this.pollSeconds * 1000, remainingMs) / 100) / 10);
      const started = Date.now();
      try {
        last = await this.send<ApiRequest>('GET', `/v1/requests/${encodeURIComponent(id)}?wait=${waitS}`, {
          signal: options.signal,
          attemptTimeoutMs: waitS * 1000 + 15_000,
        });
        if (last.status !== 'pending' || Date.now() >= deadline || waitS === 0) return last;
        // A gateway shutting down answers long-polls early with the row as it is; do not spin on it.
        if (Date.now() - started < waitS * 500) await this.pause(backoff, options.signal, deadline);
        else backoff.reset();
      } catch (error) {
        if (!(error instanceof GateClientError) || !error.retryable) throw error;
        const delayMs = backoff.next();
        if (Date.now() + delayMs >= deadline) {
          if (last) return last;
          throw error;
        }
        this.options.onRetry?.({ error, delayMs, attempt: backoff.attempts });
        await sleep(delayMs, options.signal);
      }
    }
  }

  /**
   * Waits for the verdicts of many requests at once over one verdict stream per 1,000 ids (`POST
   * /v1/requests/verdicts`) rather than a long-poll each; resolves with the requests in the order given, once all are
   * final. A dropped stream is opened again for the ids still owed (verdicts given meanwhile arrive at once). With
   * `timeoutMs`, the ones still pending then are returned as they are. Throws {@link GateClientError} for answers
   * retrying cannot fix (404: an id unknown or not readable with this token).
   */
  async waitMany(ids: readonly string[], options: WaitManyOptions = {}): Promise<ApiRequest[]> {
    const open = (list: string[], signal: AbortSignal) =>
      this.send<Response>('POST', '/v1/requests/verdicts', { body: { ids: list }, signal, stream: true });
    return waitForVerdicts(
      { open, read: (id) => this.get(id), backoff: this.options.backoff, onRetry: this.options.onRetry },
      ids,
      options,
    );
  }

  /** Files a request and waits for its verdict. See {@link request} and {@link wait}. */
  async requestAndWait(input: CreateRequestInput, options: WaitOptions = {}): Promise<ApiRequest> {
    const started = Date.now();
    const filed = await this.request(input, { signal: options.signal, retryForMs: options.timeoutMs });
    if (filed.status !== 'pending') return filed;
    const timeoutMs =
      options.timeoutMs === undefined ? undefined : Math.max(0, options.timeoutMs - (Date.now() - started));
    return this.wait(filed.id, { ...options, timeoutMs });
  }

  /** Cancels a pending request (the runtime no longer needs it). A decided request answers 409. */
  async cancel(id: string, input: CancelInput = {}): Promise<ApiRequest> {
    return this.send<ApiRequest>('POST', `/v1/requests/${encodeURIComponent(id)}/cancel`, { body: input });
  }

  /** Records a decision as `approver` (programmatic approvals; same authorization as a tap). */
  async decide(id: string, input: DecisionInput): Promise<ApiRequest> {
    return this.send<ApiRequest>('POST', `/v1/requests/${encodeURIComponent(id)}/decision`, { body: input });
  }

  /** The audit query: requests matching the filters, newest first, one page at a time (`cursor` = `next_cursor`). */
  async list(query: ListQuery = {}): Promise<ApiRequestPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const qs = params.toString();
    return this.send<ApiRequestPage>('GET', `/v1/requests${qs ? `?${qs}` : ''}`, {});
  }

  /** The request's audit trail, oldest first. */
  async events(id: string): Promise<ApiEvent[]> {
    const page = await this.send<{ items: ApiEvent[] }>('GET', `/v1/requests/${encodeURIComponent(id)}/events`, {});
    return page.items;
  }

  /**
   * Reports how the tool ran after an approval (`executed` / `execution_failed` in the audit trail). Pass
   * `args_sha256` (see `argsSha256()`) of the arguments that really ran: the gateway flags a mismatch.
   */
  async receipt(
    id: string,
    input: { outcome: 'succeeded' | 'failed'; detail?: string; args_sha256?: string },
  ): Promise<void> {
    await this.send<unknown>('POST', `/v1/requests/${encodeURIComponent(id)}/receipt`, { body: input });
  }

  /** Creates a scoped token (admin): the answer carries the secret, shown this once. */
  async createToken(input: {
    name: string;
    scopes: string[];
    as?: string;
    person?: string;
    expires_in_s?: number;
  }): Promise<ApiTokenInfo & { secret: string }> {
    return this.send('POST', '/v1/tokens', { body: input });
  }

  /** Lists tokens without their secrets (admin). */
  async listTokens(): Promise<ApiTokenInfo[]> {
    return (await this.send<{ items: ApiTokenInfo[] }>('GET', '/v1/tokens', {})).items;
  }

  /** Revokes a token at once on every replica (admin). */
  async revokeToken(id: string): Promise<void> {
    await this.send<null>('DELETE', `/v1/tokens/${encodeURIComponent(id)}`, {});
  }

  /** One API call (`transport.ts`). */
  private send<T>(method: string, path: string, options: SendOptions): Promise<T> {
    return this.transport.send<T>(method, path, options);
  }

  private async pause(backoff: Backoff, signal: AbortSignal | undefined, deadline: number): Promise<void> {
    await sleep(Math.min(backoff.next(), Math.max(0, deadline - Date.now())), signal);
  }
}
