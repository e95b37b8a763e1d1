/**
 * `tollgate mcp` and long waits: a client that gives up on its own timeout leaves the request decidable, and the same
 * call sent again re-attaches to it — also when the verdict came meanwhile, so the gateway answers the create call
 * with a request that is already final. A verdict is used once; receipts record how the approved call ran.
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/eventually.js';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import { startProxy, type ProxyFixture } from './helpers.js';

let f: ProxyFixture;
beforeEach(async () => {
  f = await startProxy();
}, 30_000);
afterEach(() => f.close());

const DELETE = { name: 'delete_file', arguments: { path: '/tmp/x' } };
/** A call the client gives up on after 1 s, as clients do after 60–120 s (the SDK then sends notifications/cancelled). */
async function callAndTimeOut(): Promise<void> {
  const error = await f.client.callTool(DELETE, undefined, { timeout: 1000 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.RequestTimeout);
}

describe('tollgate mcp re-attaching', () => {
  it('keeps the request pending when the client times out; the same call re-sent re-attaches and runs once on approval', async () => {
    await callAndTimeOut();
    const first = await f.pendingRequest();
    const again = f.client.callTool(DELETE) as Promise<CallToolResult>;
    // The re-send is handled after the cancellation (one ordered stdio stream): still one request, still pending.
    await eventually(
      async () => expect((await f.allRequests()).map((r) => [r.id, r.status])).toEqual([[first.id, 'pending']]),
      5_000,
      100,
    );
    expect(f.calls()).toEqual([]);
    await f.decide(first.id, { decision: 'approve' });
    expect((await again).content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/x"}' }]);
    expect(f.calls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/x' } }]);
  }, 30_000);

  it('answers a re-sent call at once when the verdict came while nobody waited (the create call returns it final), and uses it once', async () => {
    await callAndTimeOut();
    const first = await f.pendingRequest();
    await f.decide(first.id, { decision: 'approve', approved_args: { path: '/tmp/x/one' } });
    const result = (await f.client.callTool(DELETE)) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'deleted {"path":"/tmp/x/one"}' }]);
    expect(await f.allRequests()).toHaveLength(1);

    // The verdict was used: the same call asked once more asks a human again instead of running on it.
    const third = f.client.callTool(DELETE) as Promise<CallToolResult>;
    const second = await f.pendingRequest();
    expect(second.id).not.toBe(first.id);
    await f.decide(second.id, { decision: 'deny', reason: 'once is enough' });
    expect(await third).toEqual({
      content: [{ type: 'text', text: 'tollgate: denied: once is enough' }],
      isError: true,
    });
    expect(f.calls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/x/one' } }]);
  }, 30_000);

  it('answers a re-sent call with a denial that came while nobody waited', async () => {
    await callAndTimeOut();
    const first = await f.pendingRequest();
    await f.decide(first.id, { decision: 'deny', reason: 'no' });
    expect(await f.client.callTool(DELETE)).toEqual({
      content: [{ type: 'text', text: 'tollgate: denied: no' }],
      isError: true,
    });
    expect(f.calls()).toEqual([]);
  }, 30_000);

  it('runs one approval once when two identical calls wait on it; the other asks again', async () => {
    const a = f.client.callTool(DELETE) as Promise<CallToolResult>;
    const b = f.client.callTool(DELETE) as Promise<CallToolResult>;
    const first = await f.pendingRequest();
    await eventually(async () => expect(await f.allRequests()).toHaveLength(1), 5_000, 100);
    await f.decide(first.id, { decision: 'approve' });
    const second = await eventually(async () => {
      const pending = await f.pendingRequest();
      expect(pending.id).not.toBe(first.id);
      return pending;
    });
    await f.decide(second.id, { decision: 'deny', reason: 'not twice' });
    const results = await Promise.all([a, b]);
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(results.filter((r) => r.isError).map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'tollgate: denied: not twice' }],
    ]);
    expect(f.calls()).toHaveLength(1);
  }, 30_000);
});

describe('tollgate mcp receipts', () => {
  it('records executed, with the arguments that ran matching the approved ones', async () => {
    const call = f.client.callTool(DELETE);
    const request = await f.pendingRequest();
    await f.decide(request.id, { decision: 'approve', approved_args: { path: '/tmp/x/y' } });
    await call;
    const executed = await eventually(async () => {
      const found = (await f.events(request.id)).find((e) => e.type === 'executed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(executed.actor).toBe(`token:${request.filed_by}`);
    expect(executed.detail).toMatchObject({
      allowed: true,
      args_match: true,
      args_sha256: argsSha256('mcp__files__delete_file', { path: '/tmp/x/y' }),
    });
  }, 30_000);

  it("records execution_failed with the upstream's error text when the approved call answers isError", async () => {
    const call = f.client.callTool({ name: 'fail_write', arguments: { path: '/full' } }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    await f.decide(request.id, { decision: 'approve' });
    expect(await call).toEqual({ content: [{ type: 'text', text: 'disk full writing /full' }], isError: true });
    const failed = await eventually(async () => {
      const found = (await f.events(request.id)).find((e) => e.type === 'execution_failed');
      expect(found).toBeDefined();
      return found!;
    });
    expect(failed.detail).toMatchObject({ detail: 'disk full writing /full', args_match: true });
  }, 30_000);
});
