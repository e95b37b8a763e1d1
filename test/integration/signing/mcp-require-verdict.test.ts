/**
 * `tollgate mcp --require-verdict`: the proxy forwards an approved call only when the approval's `verdict_token`
 * verifies for the gated tool and the arguments about to run — against the gateway's JWKS by default, or the one
 * `--jwks-url` names (here another gateway's, whose key signed nothing of this one: the call is refused, not run).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startProxy, type ProxyFixture } from '../mcp/helpers.js';

let f: ProxyFixture | undefined;
let other: TestServer | undefined;
afterEach(async () => {
  await f?.close();
  await other?.close();
  f = other = undefined;
});

describe('tollgate mcp --require-verdict', () => {
  it('runs an approved call whose verdict verifies, with the edited arguments it was signed for', async () => {
    f = await startProxy({ proxyArgs: ['--require-verdict'] });
    const call = f.client.callTool({
      name: 'delete_file',
      arguments: { path: '/tmp/everything' },
    }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    await f.decide(request.id, { decision: 'approve', approved_args: { path: '/tmp/one-file' } });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(f.calls()).toEqual([{ tool: 'delete_file', args: { path: '/tmp/one-file' } }]);
  }, 30_000);

  it('refuses an approval whose token no trusted key signed, and never runs it', async () => {
    other = await startTestServer();
    f = await startProxy({ proxyArgs: ['--require-verdict', '--jwks-url', `${other.url}/.well-known/jwks.json`] });
    const call = f.client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } }) as Promise<CallToolResult>;
    const request = await f.pendingRequest();
    await f.decide(request.id, { decision: 'approve' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(new RegExp(`^tollgate: no valid verdict for request ${request.id}: unknown_key: `)),
      },
    ]);
    expect(f.calls()).toEqual([]);
  }, 30_000);
});
