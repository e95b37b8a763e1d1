/**
 * @module telemetry/http-context
 * The caller's W3C trace context on the gateway's side: a request carrying a `traceparent` header is handled inside
 * the context it names, so the spans it causes (the create span first) are children of the caller's span.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { otelApi } from './api.js';

/**
 * Wraps an HTTP handler so a request with a `traceparent` runs in the context it carries. Without the header, or
 * without an SDK (the API's propagator would extract nothing; it is not even loaded), the handler runs as it is.
 */
export function withTraceContext(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // Nothing registered with the API: its propagator would extract nothing, and its context stay the root.
    const api = req.headers.traceparent === undefined ? null : otelApi();
    if (!api) return handler(req, res);
    const { context, propagation, ROOT_CONTEXT } = api;
    const caller = propagation.extract(ROOT_CONTEXT, req.headers);
    // As OpenTelemetry's own HTTP instrumentation does: listeners added to the request or response (a body parser's,
    // a 'finish' handler's) run in the caller's context, whatever async resource emits their events.
    context.bind(caller, req);
    context.bind(caller, res);
    context.with(caller, handler, undefined, req, res);
  };
}
