/**
 * @module client/verdicts
 * Waiting for many requests at once over `POST /v1/requests/verdicts`: one server-sent event stream per 1,000 ids
 * instead of a long-poll per id. A stream that drops (a gateway restart, a proxy cutting it, a stall past the
 * heartbeat) is opened again for the ids still without a verdict; the gateway sends the verdicts that became final
 * meanwhile at once, so none is lost. The client's {@link GateClient.waitMany} is the way in.
 */
import type { ApiRequest } from '../requests/serialize.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { GateClientError } from './errors.js';

/** How many ids one stream carries (the gateway takes up to 5,000). */
export const IDS_PER_STREAM = 1000;

/** A stream silent for this long is dead (the gateway sends a comment every 15 s): open it again. */
const STALLED_MS = 45_000;

/** One server-sent event: its `event` name (default `message`) and its `data` lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Reads server-sent events from a response body, ignoring comments (heartbeats). */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncIterable<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    onBytes();
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

/** Opens a verdict stream for `ids`: resolves with the 2xx response, or throws a {@link GateClientError}. */
export type OpenVerdictStream = (ids: string[], signal: AbortSignal) => Promise<Response>;

/** What {@link waitForVerdicts} needs besides the stream: retries and a plain read for the ids left at a timeout. */
export interface VerdictDeps {
  open: OpenVerdictStream;
  read: (id: string) => Promise<ApiRequest>;
  backoff?: BackoffOptions;
  onRetry?: (info: { error: GateClientError; delayMs: number; attempt: number }) => void;
}

/** Options of {@link waitForVerdicts} (and `GateClient.waitMany`). */
export interface WaitManyOptions {
  /** Give up after this long and return the requests still pending as they are. Default: wait until all are final. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told about each verdict as it arrives (once per request). */
  onVerdict?: (request: ApiRequest) => void;
}

const TIMED_OUT = new Error('timed out');

/** Resolves with every listed request once final (in the order given), or as it is when the time runs out. */
export async function waitForVerdicts(
  deps: VerdictDeps,
  ids: readonly string[],
  options: WaitManyOptions = {},
): Promise<ApiRequest[]> {
  const verdicts = new Map<string, ApiRequest>();
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal!.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const timer = options.timeoutMs === undefined ? null : setTimeout(() => stop.abort(TIMED_OUT), options.timeoutMs);
  const got = (request: ApiRequest) => {
    if (verdicts.has(request.id)) return;
    verdicts.set(request.id, request);
    options.onVerdict?.(request);
  };
  try {
    const unique = [...new Set(ids)];
    const batches: string[][] = [];
    for (let i = 0; i < unique.length; i += IDS_PER_STREAM) batches.push(unique.slice(i, i + IDS_PER_STREAM));
    await Promise.all(batches.map((batch) => follow(deps, batch, verdicts, got, stop)));
  } catch (error) {
    stop.abort(error);
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (options.signal?.aborted) throw options.signal.reason;
  // Timed out: the ones still pending are answered as they are now.
  for (const id of ids) if (!verdicts.has(id)) verdicts.set(id, await deps.read(id));
  return ids.map((id) => verdicts.get(id)!);
}

/** Keeps one batch's stream open until each of its ids has a verdict or `stop` aborts. */
async function follow(
  deps: VerdictDeps,
  batch: string[],
  verdicts: Map<string, ApiRequest>,
  got: (r: ApiRequest) => void,
  stop: AbortController,
): Promise<void> {
  const backoff = new Backoff(deps.backoff);
  for (;;) {
    const left = batch.filter((id) => !verdicts.has(id));
    if (!left.length || stop.signal.aborted) return;
    const before = verdicts.size;
    let error: GateClientError;
    try {
      await streamOnce(deps.open, left, got, stop.signal);
      // The stream ended with verdicts still owed: it was cut (a gateway going down ends its streams).
      error = new GateClientError('the verdict stream ended early', 0);
    } catch (caught) {
      if (stop.signal.aborted) return;
      if (!(caught instanceof GateClientError) || !caught.retryable) throw caught;
      error = caught;
    }
    if (verdicts.size > before) backoff.reset();
    if (batch.every((id) => verdicts.has(id))) return;
    const delayMs = backoff.next();
    deps.onRetry?.({ error, delayMs, attempt: backoff.attempts });
    await sleep(delayMs, stop.signal).catch(() => undefined);
  }
}

/** One stream: hands each verdict to `got` until the stream ends; a broken or stalled stream throws a retryable error. */
async function streamOnce(
  open: OpenVerdictStream,
  ids: string[],
  got: (r: ApiRequest) => void,
  stop: AbortSignal,
): Promise<void> {
  const stalled = new AbortController();
  let timer = setTimeout(() => stalled.abort(), STALLED_MS);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stalled.abort(), STALLED_MS);
  };
  try {
    const response = await open(ids, AbortSignal.any([stop, stalled.signal]));
    alive();
    for await (const event of sseEvents(response.body!, alive)) {
      if (event.event === 'verdict') got(JSON.parse(event.data) as ApiRequest);
    }
  } catch (error) {
    if (error instanceof GateClientError || stop.aborted) throw error;
    throw new GateClientError(
      `the verdict stream broke: ${error instanceof Error ? error.message : String(error)}`,
      0,
      null,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}
