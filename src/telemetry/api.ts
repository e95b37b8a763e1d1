/**
 * @module telemetry/api
 * The OpenTelemetry API, loaded the first time it can do anything. Until something in the process registers with it
 * (tollgate's SDK from `OTEL_*` variables, or a host application's own tracer provider, propagator or context
 * manager), every call of the API is a no-op: a tracer whose spans record nothing, a propagator that injects and
 * extracts nothing, a context that stays the root. Loading it anyway costs 47 files, about 20 ms of CPU, at every start
 * of `tollgate serve` and of each client command; so callers ask {@link otelApi} and skip the call on null.
 */
import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';

/** The `@opentelemetry/api` module. */
export type OtelApi = typeof OtelApiModule;

/**
 * Where every copy of API 1.x keeps what was registered with it (the API's own `registerGlobal`): the key appears with
 * the first registration, and merely loading the API does not create it.
 */
const REGISTERED = Symbol.for('opentelemetry.js.api.1');
// A CommonJS package (its `import` resolves to the same file): required, so a span can be started synchronously.
const requireCjs = createRequire(import.meta.url);

let api: OtelApi | null = null;

/** The API once anything registered with it (then kept), else null: whatever the caller would do with it is a no-op. */
export function otelApi(): OtelApi | null {
  if (!api && REGISTERED in globalThis) api = loadOtelApi();
  return api;
}

/** The API, loaded now (to register an SDK with it). */
export function loadOtelApi(): OtelApi {
  return (api ??= requireCjs('@opentelemetry/api') as OtelApi);
}
