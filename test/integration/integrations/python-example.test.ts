/**
 * The Python standard-library example (`examples/python/gate_tool_call.py`), run with `python3` against
 * `tollgate serve` as a child process and decided through the API.
 */
import { describe, expect, it } from 'vitest';
import { PYTHON3 } from '../../support/python.js';
import { allRequests, childGatewaysPerTest, clientEnv, decide, pendingRequest, spawnProcess } from './helpers.js';

// Each test starts gateways and CLIs as child processes on two shared cores.
const SLOW = 120_000;

const SCRIPT = 'examples/python/gate_tool_call.py';
const { gateway } = childGatewaysPerTest('python');

const python = (gw: { url: string; token: string }, ...args: string[]) =>
  spawnProcess(PYTHON3, [SCRIPT, ...args], { env: clientEnv(gw) });

describe('examples/python/gate_tool_call.py', { timeout: SLOW }, () => {
  it('runs the tool with the approver-edited arguments once approved', async () => {
    const gw = await gateway();
    const run = python(gw, 'delete_path', '{"path": "/tmp/old"}');
    const request = await pendingRequest(gw, (r) => r.tool_name === 'delete_path');
    expect(request).toMatchObject({ agent_id: 'python-example', tool_args: { path: '/tmp/old' } });
    await decide(gw, request.id, { decision: 'approve', approved_args: { path: '/tmp/old/cache' } });
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'approved: running delete_path with {"path": "/tmp/old/cache"}\ndeleted /tmp/old/cache\n',
    );
  });

  it('does not run the tool when denied, and says why', async () => {
    const gw = await gateway();
    const run = python(gw, 'delete_path', '{"path": "/"}');
    const request = await pendingRequest(gw, (r) => r.tool_name === 'delete_path');
    await decide(gw, request.id, { decision: 'deny', reason: 'that is the root' });
    expect(await run.done).toMatchObject({ code: 1, stdout: 'not run: denied: that is the root\n' });
  });

  it('does not run the tool when the request expires', async () => {
    const gw = await gateway();
    const result = await python(gw, 'delete_path', '{"path": "/tmp/x"}', 'py-expire', '1').done;
    expect(result).toMatchObject({ code: 1, stdout: 'not run: expired: no reason given\n' });
  });

  it('keeps long-polling through a gateway restart (SIGKILL)', async () => {
    const first = await gateway();
    const run = python(first, 'delete_path', '{"path": "/tmp/y"}');
    const request = await pendingRequest(first, (r) => r.tool_name === 'delete_path');
    await first.kill('SIGKILL');
    const second = await gateway();
    await decide(second, request.id, { decision: 'approve' });
    expect(await run.done).toMatchObject({ code: 0, stdout: expect.stringContaining('deleted /tmp/y') });
  });

  it('re-attaches to the decided request when asked again with the same idempotency key', async () => {
    const gw = await gateway();
    const run = python(gw, 'delete_path', '{"path": "/tmp/z"}', 'py-key-1');
    const request = await pendingRequest(gw, (r) => r.idempotency_key === 'py-key-1');
    await decide(gw, request.id, { decision: 'approve' });
    expect((await run.done).code).toBe(0);
    const again = await python(gw, 'delete_path', '{"path": "/tmp/z"}', 'py-key-1').done;
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('deleted /tmp/z') });
    expect(await allRequests(gw)).toHaveLength(1);
  });

  it('reports malformed input: bad JSON locally, a non-object argument list from the gateway (exit 2)', async () => {
    const gw = await gateway();
    const [notJson, notObject] = await Promise.all([
      python(gw, 'delete_path', '{oops').done,
      python(gw, 'delete_path', '[1, 2]').done,
    ]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/not JSON/);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toMatch(/tollgate: tool_args/);
    expect(await allRequests(gw)).toHaveLength(0);
  });
});
