// The MCP proxy passes an MCP client's W3C trace context (`params._meta.traceparent`) to the gateway, so the gateway's
// create span joins the client's trace although the proxy process runs no OpenTelemetry SDK. The gateway here is a
// plain node HTTP server that records the headers of the create and answers it as approved.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateClient } from '../../../src/client/index.js';
import { GatedCalls } from '../../../src/mcp/gated-call.js';

const creates: IncomingHttpHeaders[] = [];
let server: Server;
let calls: GatedCalls;
const forwarded: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/requests') creates.push(req.headers);
    req.resume();
    const approved = {
      id: `r${creates.length}`,
      status: 'approved',
      allowed: true,
      tool_name: 'mcp__files__delete',
      tool_args: {},
    };
    res
      .writeHead(req.url === '/v1/requests' ? 201 : 200, { 'content-type': 'application/json' })
      .end(JSON.stringify(approved));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gate = new GateClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 't' });
  calls = new GatedCalls({
    name: 'files',
    sessionId: 's1',
    gate,
    forward: async (tool) => {
      forwarded.push(tool);
      return { content: [{ type: 'text', text: 'done' }] };
    },
  });
});
afterAll(async () => {
  await calls.flush();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const extra = { signal: new AbortController().signal, sendNotification: async () => undefined };

describe('the MCP proxy and trace context', () => {
  it('sends the MCP client’s traceparent with the create', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const before = forwarded.length;
    const result = await calls.call({ name: 'delete', arguments: { path: '/tmp/a' }, _meta: { traceparent } }, extra);
    expect(result.isError).toBeFalsy();
    expect(forwarded.slice(before)).toEqual(['delete']);
    expect(creates.at(-1)!.traceparent).toBe(traceparent);
  });

  it('sends none when the client sent none', async () => {
    await calls.call({ name: 'delete', arguments: { path: '/tmp/b' } }, extra);
    expect(creates.at(-1)!.traceparent).toBeUndefined();
  });
});
