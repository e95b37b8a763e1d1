// End to end: a ToolExecutor with `policy` + `approvalGate` against a running gateway (real SQLite, real HTTP),
// decided through the HTTP API. Once remotely (url + token) and once in process ({ gateway }).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookRegistry, ToolExecutor, approvalGate, policyHook } from '../../../src/hooks/index.js';
import type { ApprovalGateOptions } from '../../../src/hooks/index.js';
import type { ApiRequest } from '../../../src/requests/serialize.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer } from '../../helpers/server.js';
import type { TestServer } from '../../helpers/server.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

async function pendingFor(toolCallId: string): Promise<ApiRequest> {
  return eventually(async () => {
    const page = (await (await server.api('/v1/requests?status=pending')).json()) as { items: ApiRequest[] };
    const found = page.items.find((r) => r.tool_call_id === toolCallId);
    if (!found) throw new Error(`no pending request for ${toolCallId} yet`);
    return found;
  });
}

async function decide(id: string, body: Record<string, unknown>): Promise<void> {
  const res = await server.api(`/v1/requests/${id}/decision`, { body });
  expect(res.status).toBe(200);
}

function agent(target: 'remote' | 'in-process') {
  const registry = new HookRegistry({ logger: memoryLogger() });
  registry.register('tool:pre', policyHook({ deny_tools: ['drop_*'] }), { priority: 10 });
  const where: Partial<ApprovalGateOptions> =
    target === 'remote' ? { url: server.url, token: server.token } : { gateway: server.gateway };
  const gate = approvalGate({
    ...where,
    tools: ['deploy'],
    timeoutS: 120,
    prompt: (c) => `Deploy ${String(c.toolArgs?.env)}?`,
  } as ApprovalGateOptions);
  const deployed: Record<string, unknown>[] = [];
  const executor = new ToolExecutor({
    registry,
    gate,
    tools: {
      deploy: (args) => {
        deployed.push(args);
        return `deployed ${String(args.env)}`;
      },
      drop_table: () => 'dropped',
    },
  });
  return { executor, deployed };
}

describe.each(['remote', 'in-process'] as const)('policy + approvalGate against a running gateway (%s)', (target) => {
  it('approved, then denied with a reason, then approved with edited args', async () => {
    const { executor, deployed } = agent(target);

    // policy denies before anyone is asked
    const dropped = await executor.execute('drop_table', {}, { toolCallId: 'call_0' });
    expect(dropped.status).toBe('blocked');

    // 1. approved through the API
    const first = executor.execute(
      'deploy',
      { env: 'prod' },
      { toolCallId: 'call_1', sessionId: 'sess', agentId: 'release-bot' },
    );
    const req1 = await pendingFor('call_1');
    expect(req1).toMatchObject({
      tool_name: 'deploy',
      tool_args: { env: 'prod' },
      prompt: 'Deploy prod?',
      agent_id: 'release-bot',
      idempotency_key: 'hook:release-bot:sess:call_1',
    });
    await decide(req1.id, { decision: 'approve', approver: 'web:alice' });
    expect(await first).toMatchObject({ status: 'ok', result: 'deployed prod' });

    // 2. denied with a reason that comes back as the blocked reason
    const second = executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_2' });
    const req2 = await pendingFor('call_2');
    await decide(req2.id, { decision: 'deny', approver: 'web:bob', reason: 'change freeze until Monday' });
    const denied = await second;
    expect(denied.status).toBe('blocked');
    expect(denied.status === 'blocked' && denied.reason).toContain('change freeze until Monday');

    // 3. approved with edited args that the tool receives
    const third = executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_3' });
    const req3 = await pendingFor('call_3');
    await decide(req3.id, { decision: 'approve', approver: 'web:alice', approved_args: { env: 'staging' } });
    expect(await third).toMatchObject({ status: 'ok', result: 'deployed staging' });

    expect(deployed).toEqual([{ env: 'prod' }, { env: 'staging' }]);
  });

  it('a retried tool call re-attaches to its request instead of filing a new one', async () => {
    const { executor } = agent(target);
    const first = executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_r', sessionId: 's' });
    const req = await pendingFor('call_r');
    await decide(req.id, { decision: 'approve', approver: 'web:alice' });
    expect((await first).status).toBe('ok');
    // Same tool call again (the runtime retried after a crash): the decided request answers at once.
    expect((await executor.execute('deploy', { env: 'prod' }, { toolCallId: 'call_r', sessionId: 's' })).status).toBe(
      'ok',
    );
    const all = (await (await server.api('/v1/requests?tool_name=deploy')).json()) as { items: ApiRequest[] };
    expect(all.items).toHaveLength(1);
  });
});
