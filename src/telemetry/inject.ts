/**
 * @module telemetry/inject
 * The client's side of trace propagation: the active context's W3C `traceparent` (and `tracestate`, baggage) go out
 * with every call to the gateway, through whatever propagator the application registered with the OpenTelemetry API.
 * An application without an SDK has the API's no-op propagator: nothing is added, and the API is not even loaded
 * (`api.ts`), so `tollgate/client` and the client commands stay light.
 */
import { otelApi } from './api.js';

/** Adds the active trace context's headers to `headers` (in place) and returns it. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  const api = otelApi();
  api?.propagation.inject(api.context.active(), headers);
  return headers;
}
