/**
 * `tollgate mcp` end to end: the real SDK client talks to the proxy process (bin/tollgate.js), which talks to a real
 * SDK upstream process and to a real in-process gateway.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { needsApproval } from '../../../src/mcp/proxy.js';

const BIN = fileURLToPath(new URL('../../../bin/tollgate.js', import.meta.url));
const UPSTREAM = fileURLToPath(new URL('../../fakes/mcp/upstream.ts', import.meta.url));

let t: TestServer;
let client: Client;
let dir: string;
let log: string;

beforeEach(async () => {
  t = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-'));
  log = join(dir, 'calls.ndjson');
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--name', 'files', '--approver', 'web:alice', '--', process.execPath, '--import', 'tsx', UPSTREAM],
      env: { ...process.env, TOLLGATE_URL: t.url, TOLLGATE_TOKEN: t.token, FAKE_MCP_LOG: log } as Record<string, string>,
      stderr: 'inherit',
    }),
  );
}, 30_000);

afterEach(async () => {
  await client.close();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The upstream's recorded calls. */
function calls(): { tool: string; args: Record<string, unknown> }[] {
  try {
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

async function pendingRequest(): Promise<{ id: string; tool_name: string; tool_args: Record<string, unknown>; approvers: string[] }> {
  return eventually(async () => {
    const page = (await (await t.api('/v1/requests?status=pending')).json()) as { items: { id: string; tool_name: string; tool_args: Record<string, unknown>; approvers: string[] }[] };
    const rows = page.items;
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }, 10_000);
}

async function allRequests(): Promise<unknown[]> {
  const page = (await (await t.api('/v1/requests')).json()) as { items: unknown[] };
  expect(Array.isArray(page.items)).toBe(true);
  return page.items;
}

describe('tollgate mcp', () => {
  it('lists the upstream tools with their annotations and forwards read-only calls without filing a request', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['read_file', 'delete_file', 'crash']);
    expect(tools[0]!.annotations).toEqual({ readOnlyHint: true });
    expect(tools[1]!.annotations).toEqual({ destructiveHint: true });

    const result = (await client.callTool({ name: 'read_file', arguments: { path: '/tmp/a' } })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'contents of /tmp/a' }]);
    expect(result.isError).toBeFalsy();
    expect(await allRequests()).toHaveLength(0);
  }, 30_000);

  it('holds a destructive call until approved, then runs it with the approver-edited arguments', async () => {
    const call = client.callTool({ name: 'delete_file', arguments: { path: '/tmp/everything' } }) as Promise<CallToolResult>;
    const request = await pendingRequest();
    expect(request.tool_name).toBe('mcp__files__delete_file');
    expect(request.tool_args).toEqual({ path: '/tmp/everything' });
    expect(request.approvers).toEqual(['web:alice']);
    expect(calls()).toEqual([]);

    const decided = await t.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', approved_args: { path: '/tmp/one-file' } },
    });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/one-file"}' }]);
    expect(calls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/one-file' } }]);
  }, 30_000);

  it('answers a denied call with an isError result carrying the reason, and never runs it', async () => {
    const call = client.callTool({ name: 'delete_file', arguments: { path: '/etc' } }) as Promise<CallToolResult>;
    const request = await pendingRequest();
    await t.api(`/v1/requests/${request.id}/decision`, { body: { decision: 'deny', approver: 'web:alice', reason: 'not /etc' } });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'tollgate: denied: not /etc' }]);
    expect(calls()).toEqual([]);
  }, 30_000);

  it('cancels the pending request when the client cancels the call', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } }, undefined, { signal: controller.signal });
    const request = await pendingRequest();
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually(async () => {
      const row = (await (await t.api(`/v1/requests/${request.id}`)).json()) as { status: string };
      expect(row.status).toBe('cancelled');
    }, 10_000);
    expect(calls()).toEqual([]);
  }, 30_000);

  it('answers an isError result, without hanging, once the upstream has exited', async () => {
    const crashed = (await client.callTool({ name: 'crash', arguments: {} })) as CallToolResult;
    expect(crashed.isError).toBe(true);
    expect(JSON.stringify(crashed.content)).toMatch(/tollgate: the upstream MCP server .*files/);
    const after = (await client.callTool({ name: 'read_file', arguments: { path: '/tmp/a' } })) as CallToolResult;
    expect(after.isError).toBe(true);
    expect(JSON.stringify(after.content)).toMatch(/exited/);
  }, 30_000);
});

describe('needsApproval', () => {
  const readOnly = { name: 'read_file', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } };
  it('asks for anything not annotated read-only, --gate wins over the annotation, --allow skips asking', () => {
    expect(needsApproval('read_file', readOnly)).toBe(false);
    expect(needsApproval('write_file', { ...readOnly, name: 'write_file', annotations: { readOnlyHint: false } })).toBe(true);
    expect(needsApproval('unknown', undefined)).toBe(true);
    expect(needsApproval('read_file', readOnly, ['read_*'])).toBe(true);
    expect(needsApproval('list_dir', undefined, [], ['list_*'])).toBe(false);
    expect(needsApproval('list_dir', undefined, ['list_d?r'], ['list_*'])).toBe(true);
    expect(needsApproval('list.dir', undefined, [], ['list_dir'])).toBe(true);
  });
});
