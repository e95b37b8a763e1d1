/**
 * @module telemetry
 * OpenTelemetry traces: the spans (`tracing.ts`), the SDK started from the standard `OTEL_*` variables (`sdk.ts`),
 * and W3C trace-context propagation in (`http-context.ts`) and out (`inject.ts`).
 */
export { ATTR, SPAN, RequestTraces, traced, markSpan, refreshTracer, type SpanPlace } from './tracing.js';
export { startTracing, tracesExporters, tracesUrl, tracingSdkLoaded, type Tracing } from './sdk.js';
export { withTraceContext } from './http-context.js';
export { injectTraceHeaders } from './inject.js';
export { traceCard, traceCreate, traceDecision, traceExpiry, tracePolicy, traceWake } from './request-spans.js';
