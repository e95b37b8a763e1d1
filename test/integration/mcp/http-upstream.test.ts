/**
 * `tollgate mcp --upstream-url`: the proxy process talks Streamable HTTP to an upstream served in this test by the
 * SDK's `StreamableHTTPServerTransport` on 127.0.0.1 (OS port), behind a bearer header the proxy must send.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { createFakeUpstream } from '../../fakes/mcp/fake-server.js';
import { startProxy, type ProxyFixture } from './helpers.js';

let http: HttpServer;
let url: string;
let dir: string;
let f: ProxyFixture;
let unauthorized = 0;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-http-'));
  const log = join(dir, 'calls.ndjson');
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  unauthorized = 0;
  http = createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== 'Bearer upstream-secret') {
        unauthorized++;
        res.writeHead(401).end();
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        await createFakeUpstream(log).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    })();
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  f = await startProxy({
    logFile: log,
    proxyArgs: ['--upstream-url', url, '--header', 'Authorization: Bearer upstream-secret'],
  });
}, 30_000);

afterEach(async () => {
  await f.close();
  http.closeAllConnections();
  http.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tollgate mcp --upstream-url (Streamable HTTP)', () => {
  it('lists the tools, forwards read-only calls at once and gated ones with the approved arguments', async () => {
    expect((await f.client.listTools()).tools.map((t) => t.name)).toEqual([
      'read_file',
      'delete_file',
      'fail_write',
      'crash',
      'add_tool',
      'slow_read',
    ]);
    expect(await f.client.callTool({ name: 'read_file', arguments: { path: '/a' } })).toEqual({
      content: [{ type: 'text', text: 'contents of /a' }],
    });
    expect(await f.allRequests()).toHaveLength(0);

    const call = f.client.callTool({ name: 'delete_file', arguments: { path: '/all' } }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    expect(request.tool_name).toBe('mcp__files__delete_file');
    expect(f.calls()).toEqual([{ tool: 'read_file', args: { path: '/a' } }]);
    await f.decide(request.id, { decision: 'approve', approved_args: { path: '/one' } });
    expect((await call).content).toEqual([{ type: 'text', text: 'deleted {"path":"/one"}' }]);
    expect(f.calls().at(-1)).toEqual({ tool: 'delete_file', args: { path: '/one' } });
    expect(unauthorized).toBe(0);
  }, 30_000);

  it("forwards a tool list change sent on the upstream's SSE stream", async () => {
    let changed = 0;
    f.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await f.client.callTool({ name: 'add_tool', arguments: {} });
    await eventually(() => expect(changed).toBe(1));
    expect((await f.client.listTools()).tools.map((t) => t.name)).toContain('new_tool');
  }, 30_000);

  it('answers an isError result, without hanging, when the upstream stops answering', async () => {
    await f.client.listTools();
    http.closeAllConnections();
    http.close();
    const result = (await f.client.callTool({ name: 'read_file', arguments: { path: '/a' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(
      /tollgate: the upstream MCP server \\"files\\" could not be reached/,
    );
  }, 30_000);
});
