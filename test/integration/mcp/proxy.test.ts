/**
 * `tollgate mcp` end to end: the real SDK client talks to the proxy process (the CLI, see helpers.ts), which talks
 * to a real SDK upstream process and to a real in-process gateway.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { isClientTimeout } from '../../../src/mcp/gated-call.js';
import { needsApproval } from '../../../src/mcp/proxy.js';
import { startProxy, type ProxyFixture } from './helpers.js';

let f: ProxyFixture;

describe('tollgate mcp', () => {
  beforeEach(async () => {
    f = await startProxy({ proxyArgs: ['--progress', '0.1'] });
  }, 30_000);
  afterEach(() => f.close());

  it('lists the upstream tools with their annotations and forwards read-only calls without filing a request', async () => {
    const { tools } = await f.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'read_file',
      'delete_file',
      'fail_write',
      'crash',
      'add_tool',
      'slow_read',
    ]);
    expect(tools[0]!.annotations).toEqual({ readOnlyHint: true });
    expect(tools[1]!.annotations).toEqual({ destructiveHint: true });

    const result = (await f.client.callTool({ name: 'read_file', arguments: { path: '/tmp/a' } })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'contents of /tmp/a' }]);
    expect(result.isError).toBeFalsy();
    expect(await f.allRequests()).toHaveLength(0);
  }, 30_000);

  it('holds a destructive call until approved, then runs it with the approver-edited arguments', async () => {
    const call = f.client.callTool({
      name: 'delete_file',
      arguments: { path: '/tmp/everything' },
    }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    expect(request.tool_name).toBe('mcp__files__delete_file');
    expect(request.tool_args).toEqual({ path: '/tmp/everything' });
    expect(request.approvers).toEqual(['web:alice']);
    expect(f.calls()).toEqual([]);

    const decided = await f.t.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'approve', approver: 'web:alice', approved_args: { path: '/tmp/one-file' } },
    });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/one-file"}' }]);
    expect(f.calls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/one-file' } }]);
  }, 30_000);

  it('answers a denied call with an isError result carrying the reason, and never runs it', async () => {
    const call = f.client.callTool({ name: 'delete_file', arguments: { path: '/etc' } }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    await f.t.api(`/v1/requests/${request.id}/decision`, {
      body: { decision: 'deny', approver: 'web:alice', reason: 'not /etc' },
    });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'tollgate: denied: not /etc' }]);
    expect(f.calls()).toEqual([]);
  }, 30_000);

  it('sends progress notifications while a call waits, when the client asked for progress', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const call = f.client.callTool({ name: 'delete_file', arguments: { path: '/tmp/p' } }, undefined, {
      onprogress: (p) => progress.push(p),
      resetTimeoutOnProgress: true,
    });
    const request = await f.pendingRequest();
    await eventually(() => expect(progress.length).toBeGreaterThanOrEqual(2), 10_000);
    expect(progress[0]).toMatchObject({
      progress: 1,
      message: `waiting for a human to approve tollgate request ${request.id}`,
    });
    await f.t.api(`/v1/requests/${request.id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
    expect(((await call) as CallToolResult).content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/p"}' }]);
  }, 30_000);

  it('cancels the pending request when the client cancels the call', async () => {
    const controller = new AbortController();
    const call = f.client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } }, undefined, {
      signal: controller.signal,
    });
    const request = await f.pendingRequest();
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually(async () => {
      const row = (await (await f.t.api(`/v1/requests/${request.id}`)).json()) as { status: string };
      expect(row.status).toBe('cancelled');
    }, 10_000);
    expect(f.calls()).toEqual([]);
  }, 30_000);

  it('answers an isError result, without hanging, once the upstream has exited', async () => {
    const crashed = (await f.client.callTool({ name: 'crash', arguments: {} })) as CallToolResult;
    expect(crashed.isError).toBe(true);
    expect(JSON.stringify(crashed.content)).toMatch(/tollgate: the upstream MCP server .*files/);
    const after = (await f.client.callTool({ name: 'read_file', arguments: { path: '/tmp/a' } })) as CallToolResult;
    expect(after.isError).toBe(true);
    expect(JSON.stringify(after.content)).toMatch(/exited/);
  }, 30_000);
});

describe('tollgate mcp and expiry', () => {
  const clock = new ManualClock();
  beforeEach(async () => {
    f = await startProxy({ clock, proxyArgs: ['--timeout', '60'] });
  }, 30_000);
  afterEach(() => f.close());

  it('answers an isError result when the request expires unanswered, and never runs the call', async () => {
    const call = f.client.callTool({
      name: 'delete_file',
      arguments: { path: '/tmp/late' },
    }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    expect(Date.parse(request.expires_at) - Date.parse(request.created_at)).toBe(60_000);
    await clock.advance(60_000);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: `tollgate: expired: no approver answered before request ${request.id} expired` },
    ]);
    expect(f.calls()).toEqual([]);
  }, 30_000);
});

describe('needsApproval', () => {
  const readOnly = { name: 'read_file', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } };
  it('asks for anything not annotated read-only, --gate wins over the annotation, --allow skips asking', () => {
    expect(needsApproval('read_file', readOnly)).toBe(false);
    expect(needsApproval('write_file', { ...readOnly, name: 'write_file', annotations: { readOnlyHint: false } })).toBe(
      true,
    );
    expect(needsApproval('unknown', undefined)).toBe(true);
    expect(needsApproval('read_file', readOnly, ['read_*'])).toBe(true);
    expect(needsApproval('list_dir', undefined, [], ['list_*'])).toBe(false);
    expect(needsApproval('list_dir', undefined, ['list_d?r'], ['list_*'])).toBe(true);
    expect(needsApproval('list.dir', undefined, [], ['list_dir'])).toBe(true);
  });
});

describe('isClientTimeout', () => {
  it("tells the SDK's timeout cancellation from a deliberate one", () => {
    expect(isClientTimeout('McpError: MCP error -32001: Request timed out')).toBe(true);
    expect(isClientTimeout('McpError: MCP error -32001: Maximum total timeout exceeded')).toBe(true);
    expect(isClientTimeout(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe(true);
    expect(isClientTimeout('AbortError: This operation was aborted')).toBe(false);
    expect(isClientTimeout(new DOMException('This operation was aborted', 'AbortError'))).toBe(false);
    expect(isClientTimeout(undefined)).toBe(false);
    expect(isClientTimeout('user pressed stop')).toBe(false);
  });
});
