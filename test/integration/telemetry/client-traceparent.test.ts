// GateClient sends the active span's W3C trace context (through the propagator the application registered with the
// OpenTelemetry API) on every call, and nothing when no span is active. The server is a plain node HTTP server that
// records the headers it was sent.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateClient } from '../../../src/client/index.js';

const provider = new NodeTracerProvider();
const seen: IncomingHttpHeaders[] = [];
let server: Server;
let client: GateClient;

beforeAll(async () => {
  provider.register();
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'r1', status: 'pending' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new GateClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' });
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('GateClient and trace context', () => {
  it('sends the active span as traceparent', async () => {
    const span = await trace.getTracer('agent').startActiveSpan('agent.tool_call', async (span) => {
      await client.request({ tool_name: 'deploy' });
      span.end();
      return span.spanContext();
    });
    expect(seen.at(-1)!.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
  });

  it('sends none outside a span', async () => {
    await client.get('r1');
    expect(seen.at(-1)!.traceparent).toBeUndefined();
  });

  it('sends a caller-given traceparent (an MCP client’s) when no span is active, and only a well-formed one', async () => {
    const given = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.request({ tool_name: 'deploy' }, { traceparent: given });
    expect(seen.at(-1)!.traceparent).toBe(given);
    await client.request({ tool_name: 'deploy' }, { traceparent: 'not-a-traceparent' });
    expect(seen.at(-1)!.traceparent).toBeUndefined();
  });

  it('prefers the active span to a caller-given traceparent', async () => {
    const span = await trace.getTracer('agent').startActiveSpan('agent.tool_call', async (span) => {
      await client.request(
        { tool_name: 'deploy' },
        { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      );
      span.end();
      return span.spanContext();
    });
    expect(seen.at(-1)!.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
  });
});
