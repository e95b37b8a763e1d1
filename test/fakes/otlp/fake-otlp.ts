/**
 * A fake OpenTelemetry collector: an OTLP/HTTP receiver on 127.0.0.1 that takes `POST /v1/traces` in the JSON
 * encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, gzip or not), answers as a collector does, and keeps every span
 * decoded, with its attributes flattened, for assertions.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An OTLP `AnyValue` as the JSON encoding writes it. */
type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
  events?: { name: string }[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** A span as received, ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The attributes of the resource that sent it (`service.name`…). */
  resource: Record<string, unknown>;
  /** The instrumentation scope's name (`tollgate`). */
  scope: string;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function flatten(attributes: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(attributes.map((a) => [a.key, plain(a.value)]));
}

/** The fake collector. */
export class FakeOtlp {
  /** Every span received, in order of arrival. */
  readonly spans: ReceivedSpan[] = [];
  /** Content types of the export requests (to check the encoding). */
  readonly contentTypes: string[] = [];

  private constructor(
    private readonly server: Server,
    /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
    readonly url: string,
  ) {}

  /** Listens on 127.0.0.1, on a free port. */
  static async start(): Promise<FakeOtlp> {
    const received: { fake?: FakeOtlp } = {};
    const server = createServer((req, res) => {
      const fake = received.fake!;
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        try {
          const raw = Buffer.concat(chunks);
          const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          fake.contentTypes.push(req.headers['content-type'] ?? '');
          fake.receive(JSON.parse(body.toString('utf8')) as ExportTraceServiceRequest);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch (error) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(error) }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    received.fake = new FakeOtlp(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return received.fake;
  }

  private receive(request: ExportTraceServiceRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            attributes: flatten(span.attributes),
            links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
            statusCode: span.status?.code ?? 0,
            resource,
            scope: scopeSpans.scope?.name ?? '',
          });
        }
      }
    }
  }

  /** The spans named `name` (about `requestId` when given). */
  named(name: string, requestId?: string): ReceivedSpan[] {
    return this.spans.filter(
      (s) => s.name === name && (requestId === undefined || s.attributes['tollgate.request.id'] === requestId),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
