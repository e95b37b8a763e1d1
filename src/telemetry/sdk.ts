/**
 * @module telemetry/sdk
 * Starts the OpenTelemetry SDK when, and only when, the standard `OTEL_*` variables ask for traces. The SDK packages
 * are loaded by dynamic import then and never otherwise: a gateway without them keeps the API's no-op tracer.
 * The variables are the SDK's own (nothing named by tollgate): whether to start, the endpoint and the service name
 * are read from the configuration's environment; sampling (`OTEL_TRACES_SAMPLER`), batching (`OTEL_BSP_*`), headers
 * and timeouts (`OTEL_EXPORTER_OTLP_*`) and `OTEL_RESOURCE_ATTRIBUTES` by the SDK itself from the process's
 * environment, which is the same one for `tollgate serve`.
 */
import type { ProxyTracerProvider } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { VERSION } from '../version.js';
import { loadOtelApi } from './api.js';
import { refreshTracer } from './tracing.js';

/** A started SDK. */
export interface Tracing {
  /** The exporters in use (`otlp`, `console`). */
  exporters: string[];
  /** Flushes the spans still buffered and unregisters the SDK (the API falls back to its no-op tracer). */
  shutdown(): Promise<void>;
}

let sdkLoaded = false;

/** Whether this process has loaded the OpenTelemetry SDK (it never does without `OTEL_*` variables asking for traces). */
export function tracingSdkLoaded(): boolean {
  return sdkLoaded;
}

/**
 * The trace exporters the environment asks for, empty when none: those listed in `OTEL_TRACES_EXPORTER` (`none` turns
 * tracing off), else `otlp` when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set.
 * `OTEL_SDK_DISABLED=true` turns everything off.
 */
export function tracesExporters(env: Record<string, string | undefined>): string[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (named.includes('none')) return [];
  if (named.length) return [...new Set(named)];
  return env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? ['otlp'] : [];
}

/**
 * The OTLP/HTTP traces URL the environment names, by the specification's rule: the signal's own endpoint as given, or
 * the base endpoint + `/v1/traces`; undefined leaves the exporter's default (`http://localhost:4318/v1/traces`).
 */
export function tracesUrl(env: Record<string, string | undefined>): string | undefined {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * Starts the SDK if the environment asks for traces (see {@link tracesExporters}); null otherwise, with nothing loaded.
 * Also null when the host process has registered a tracer provider of its own: tollgate's spans then go to that one.
 * @example
 * const tracing = await startTracing(config.env, logger);
 * // … on shutdown:
 * await tracing?.shutdown();
 */
export async function startTracing(env: Record<string, string | undefined>, logger: Logger): Promise<Tracing | null> {
  const wanted = tracesExporters(env);
  if (!wanted.length) return null;
  const [
    { NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter },
    { OTLPTraceExporter },
    { defaultResource, detectResources, envDetector, resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  sdkLoaded = true;
  const exporters: string[] = [];
  const spanProcessors = [];
  for (const name of wanted) {
    if (name === 'otlp') spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(env) })));
    else if (name === 'console') spanProcessors.push(new BatchSpanProcessor(new ConsoleSpanExporter()));
    else {
      logger.warn(
        { exporter: name },
        'OTEL_TRACES_EXPORTER: unknown trace exporter ignored (tollgate knows otlp, console and none)',
      );
      continue;
    }
    exporters.push(name);
  }
  if (!exporters.length) return null;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (exporters.includes('otlp') && protocol && protocol !== 'http/json') {
    logger.warn(
      { protocol },
      'OTEL_EXPORTER_OTLP_PROTOCOL: tollgate exports traces as OTLP/HTTP with JSON (http/json); point it at an endpoint that takes it',
    );
  }
  // Ours by default, then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the SDK's env detector), which win.
  const named = env.OTEL_SERVICE_NAME?.trim()
    ? resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME.trim() })
    : resourceFromAttributes({});
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'tollgate', 'service.version': VERSION }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(named);
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  // Registers the provider, the W3C trace-context and baggage propagators and the async-local context manager.
  provider.register();
  const { context, propagation, trace } = loadOtelApi();
  if ((trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== provider) {
    logger.warn('a tracer provider is already registered in this process: tollgate writes its spans to it');
    await provider.shutdown();
    return null;
  }
  refreshTracer();
  logger.info(
    { exporters, endpoint: exporters.includes('otlp') ? (tracesUrl(env) ?? 'default') : undefined },
    'OpenTelemetry tracing on',
  );
  return {
    exporters,
    async shutdown() {
      await provider
        .shutdown()
        .catch((error: unknown) => logger.warn({ err: error }, 'OpenTelemetry: flushing spans at shutdown failed'));
      trace.disable();
      context.disable();
      propagation.disable();
      refreshTracer();
    },
  };
}
