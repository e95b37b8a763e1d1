/**
 * @module telemetry/tracing
 * The spans tollgate writes, through `@opentelemetry/api` only. Without an SDK registered (no `OTEL_*` variable set,
 * see `sdk.ts`) the API's tracer is a no-op: a span is one small object that records nothing, and {@link traced}
 * skips even the context switch, so the hot path pays close to nothing.
 */
import { context, isSpanContextValid, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanContext } from '@opentelemetry/api';
import { VERSION } from '../version.js';

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

let tracer = trace.getTracer('tollgate', VERSION);

/**
 * Takes the tracer again from the global provider. `sdk.ts` calls it after registering or removing its provider: a
 * tracer taken before keeps the provider it first found, so a second SDK started in one process (tests) would write to
 * the first one's, shut down.
 */
export function refreshTracer(): void {
  tracer = trace.getTracer('tollgate', VERSION);
}

/** Where a span goes: its parent context and the spans it links to. */
export interface SpanPlace {
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `fn` inside a new span, active for what `fn` calls, and ends it when `fn` settles; a thrown error is recorded on
 * the span (status error) and rethrown.
 */
export async function traced<T>(name: string, attributes: Attributes, place: SpanPlace, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = place.parent ?? context.active();
  const span = tracer.startSpan(name, { attributes, links: place.links }, parent);
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
  const span = tracer.startSpan(name, { attributes, links: place.links }, place.parent ?? context.active());
  span.end();
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
  remember(requestId: string, span: Span | undefined = trace.getActiveSpan()): void {
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
    const created = this.byRequest.get(requestId);
    return { parent: created ? trace.setSpanContext(ROOT_CONTEXT, created) : ROOT_CONTEXT };
  }

  /**
   * Where a span caused by a caller goes (a decision over the API, a chat tap): under the caller's span when one is
   * active (its `traceparent`), linked to the create span; else under the create span, so one trace shows the
   * request from filing to verdict.
   */
  callerPlace(requestId: string): SpanPlace {
    const active = trace.getSpanContext(context.active());
    if (!active || !isSpanContextValid(active)) return this.jobPlace(requestId);
    const created = this.byRequest.get(requestId);
    return { parent: context.active(), links: created ? [{ context: created }] : [] };
  }
}
