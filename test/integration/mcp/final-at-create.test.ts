/**
 * A request the gateway answers as already decided when it is filed — what the server-side policy does for
 * `mcp__<name>__<tool>` rules that allow or deny — is acted on at once: no long-poll, the approved arguments run (and
 * a receipt follows), a denial answers isError with the reason. The gateway here is a fake on 127.0.0.1 that
 * answers `POST /v1/requests` like a policy would and records every call the proxy makes.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { mcpCommand } from './helpers.js';

let http: HttpServer;
let client: Client;
let dir: string;
/** What the fake gateway saw: method, path and body. */
let seen: { method: string; path: string; body: Record<string, unknown> | null }[];

/** The policy the fake applies: allow `delete_file` with its path narrowed, deny everything else. */
function decide(body: Record<string, unknown>): Record<string, unknown> {
  const now = new Date().toISOString();
  const allowed = body.tool_name === 'mcp__files__delete_file';
  return {
    id: randomUUID(),
    status: allowed ? 'approved' : 'denied',
    tool_name: body.tool_name,
    tool_args: body.tool_args,
    approved_args: allowed ? { path: '/tmp/safe' } : null,
    allowed,
    reason: allowed ? 'policy: narrowed to /tmp/safe' : 'policy: writes are not allowed here',
    responded_by: 'policy',
    created_at: now,
    expires_at: now,
    idempotency_key: body.idempotency_key,
  };
}

beforeEach(async () => {
  seen = [];
  dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-final-'));
  http = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      seen.push({ method: req.method!, path: req.url!, body });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/v1/requests') res.writeHead(201).end(JSON.stringify(decide(body!)));
      else if (req.method === 'POST' && req.url!.endsWith('/receipt')) res.writeHead(201).end('{}');
      else
        res
          .writeHead(404)
          .end(JSON.stringify({ title: 'not here', status: 404, detail: `unexpected ${req.method} ${req.url}` }));
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: await mcpCommand(['--name', 'files']),
      env: {
        ...process.env,
        TOLLGATE_URL: url,
        TOLLGATE_TOKEN: 'fake',
        FAKE_MCP_LOG: join(dir, 'calls.ndjson'),
      } as Record<string, string>,
      stderr: 'inherit',
    }),
  );
}, 30_000);

afterEach(async () => {
  await client.close();
  http.closeAllConnections();
  http.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tollgate mcp and requests decided when filed', () => {
  it('runs an approved-at-once call with the approved arguments without waiting, then sends its receipt', async () => {
    const result = await client.callTool({ name: 'delete_file', arguments: { path: '/tmp' } });
    expect(result.content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/safe"}' }]);
    await eventually(() =>
      expect(seen.map((s) => `${s.method} ${s.path.replace(/[0-9a-f-]{36}/, ':id')}`)).toEqual([
        'POST /v1/requests',
        'POST /v1/requests/:id/receipt',
      ]),
    );
    expect(seen[1]!.body).toMatchObject({ outcome: 'succeeded' });
    expect(readFileSync(join(dir, 'calls.ndjson'), 'utf8').trim()).toBe(
      '{"tool":"delete_file","args":{"path":"/tmp/safe"}}',
    );
  }, 30_000);

  it('answers a denied-at-once call with the reason, without running or waiting', async () => {
    expect(await client.callTool({ name: 'fail_write', arguments: { path: '/x' } })).toEqual({
      content: [{ type: 'text', text: 'tollgate: denied: policy: writes are not allowed here' }],
      isError: true,
    });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v1/requests']);
  }, 30_000);
});
