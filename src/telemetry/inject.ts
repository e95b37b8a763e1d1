/**
 * @module telemetry/inject
 * The client's side of trace propagation: the active context's W3C `traceparent` (and `tracestate`, baggage) go out
 * with every call to the gateway, through whatever propagator the application registered with the OpenTelemetry API.
 * An application without an SDK has the API's no-op propagator: nothing is added. Imports only the API, so
 * `tollgate/client` stays light.
 */
import { context, propagation } from '@opentelemetry/api';

/** Adds the active trace context's headers to `headers` (in place) and returns it. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}
