/**
 * @module telemetry/tracing
 * The spans tollgate writes, through `@opentelemetry/api` only. Without an SDK registered (no `OTEL_*` variable set,
 * see `sdk.ts`, and none of the host application's) the API is not even loaded (`api.ts`): {@link traced} runs its
 * function with a span that records nothing, as the API's no-op tracer would, and skips the context switch, so the
 * hot path pays close to nothing.
 */
import type { Attributes, Context, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { VERSION } from '../version.js';
import { otelApi, type OtelApi } from './api.js';

/** The names of tollgate's spans (documented in docs/production.md, "Tracing"). */
export const SPAN = {
  create: 'tollgate.request.create',
  policy: 'tollgate.policy.evaluate',
  deliver: 'tollgate.card.deliver',
  update: 'tollgate.card.update',
  decide: 'tollgate.request.decide',
  wake: 'tollgate.waiters.wake',
  expire: 'tollgate.request.expire',
} as const;

/** The attribute keys tollgate sets on its spans. */
export const ATTR = {
  requestId: 'tollgate.request.id',
  status: 'tollgate.request.status',
  created: 'tollgate.request.created',
  tool: 'tollgate.tool.name',
  agent: 'tollgate.agent.id',
  rule: 'tollgate.policy.rule',
  ruling: 'tollgate.policy.decision',
  channel: 'tollgate.channel',
  target: 'tollgate.card.target',
  attempt: 'tollgate.delivery.attempt',
  decision: 'tollgate.decision',
  outcome: 'tollgate.decision.outcome',
  waiters: 'tollgate.waiters.count',
  onTimeout: 'tollgate.request.on_timeout',
} as const;

let tracer: Tracer | null = null;

/** tollgate's tracer, taken from the global provider on first use. */
const tracerOf = (api: OtelApi): Tracer => (tracer ??= api.trace.getTracer('tollgate', VERSION));

/**
 * Has the tracer taken again from the global provider (on its next use). `sdk.ts` calls it after registering or
 * removing its provider: a tracer taken before keeps the provider it first found, so a second SDK started in one
 * process (tests) would write to the first one's, shut down.
 */
export function refreshTracer(): void {
  tracer = null;
}

const INVALID_SPAN_CONTEXT: SpanContext = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 };

/** The span {@link traced} hands its function while nothing is registered with the API: like the API's own no-op span, it records nothing. */
class NotRecordingSpan implements Span {
  spanContext(): SpanContext {
    return INVALID_SPAN_CONTEXT;
  }
  setAttribute(): this {
    return this;
  }
  setAttributes(): this {
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(): this {
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {
    // Nothing was recorded, nothing to end.
  }
  isRecording(): boolean {
    return false;
  }
  recordException(): void {
    // Nothing is recorded.
  }
}

const NOT_RECORDING = new NotRecordingSpan();

/** Where a span goes: its parent context and the spans it links to. */
export interface SpanPlace {
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `fn` inside a new span, active for what `fn` calls, and ends it when `fn` settles; a thrown error is recorded on
 * the span (status error) and rethrown.
 */
export async function traced<T>(
  name: string,
  attributes: Attributes,
  place: SpanPlace,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const api = otelApi();
  if (!api) return fn(NOT_RECORDING);
  const { context, trace, SpanStatusCode } = api;
  const parent = place.parent ?? context.active();
  const span = tracerOf(api).startSpan(name, { attributes, links: place.links }, parent);
  // A span that records nothing (no SDK, or sampled out) needs no context of its own: fn runs as it would untraced.
  if (!span.isRecording()) return fn(span);
  try {
    return await context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** Writes a span with no duration of its own (a moment, such as waiters being woken). */
export function markSpan(name: string, attributes: Attributes, place: SpanPlace): void {
  const api = otelApi();
  if (!api) return;
  tracerOf(api)
    .startSpan(name, { attributes, links: place.links }, place.parent ?? api.context.active())
    .end();
}

/**
 * The span context of each request's create span, kept in memory so the later spans of the request (card deliveries,
 * the decision, the wake-up, the expiry) join its trace. In memory only, bounded (oldest forgotten first): a request
 * filed on another replica, or before a restart, gets spans in a trace of their own, still named by
 * `tollgate.request.id`. Storing it in the database would cost a column and a read per job for a link.
 */
export class RequestTraces {
  private readonly byRequest = new Map<string, SpanContext>();

  constructor(private readonly limit = 20_000) {}

  /** Keeps `span` (by default the active one) as the create span of `requestId`, when it records (else: nothing to join). */
  remember(requestId: string, span: Span | undefined = otelApi()?.trace.getActiveSpan()): void {
    if (!span?.isRecording()) return;
    if (this.byRequest.size >= this.limit) this.byRequest.delete(this.byRequest.keys().next().value!);
    this.byRequest.set(requestId, span.spanContext());
  }

  /**
   * Where a background span of the request goes (a job, an expiry): under its create span when known, else a new
   * trace. The active context is ignored on purpose: timers shared by many requests carry whichever request's context
   * armed them first.
   */
  jobPlace(requestId: string): SpanPlace {
    const api = otelApi();
    // Nothing registered: no span will be written, so none needs a place.
    if (!api) return {};
    const created = this.byRequest.get(requestId);
    return { parent: created ? api.trace.setSpanContext(api.ROOT_CONTEXT, created) : api.ROOT_CONTEXT };
  }

  /**
   * Where a span caused by a caller goes (a decision over the API, a chat tap): under the caller's span when one is
   * active (its `traceparent`), linked to the create span; else under the create span, so one trace shows the
   * request from filing to verdict.
   */
  callerPlace(requestId: string): SpanPlace {
    const api = otelApi();
    if (!api) return {};
    const active = api.trace.getSpanContext(api.context.active());
    if (!active || !api.isSpanContextValid(active)) return this.jobPlace(requestId);
    const created = this.byRequest.get(requestId);
    return { parent: api.context.active(), links: created ? [{ context: created }] : [] };
  }
}
