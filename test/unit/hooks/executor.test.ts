import { describe, expect, it } from 'vitest';
import { HookRegistry, ToolExecutor, approvalGate, policyHook } from '../../../src/hooks/index.js';
import type { ToolCallContext } from '../../../src/hooks/index.js';
import { fakeBackend } from './fake-backend.js';
import { memoryLogger } from './helpers.js';

function setup() {
  const registry = new HookRegistry({ logger: memoryLogger() });
  const received: { tool: string; args: Record<string, unknown>; ctx: ToolCallContext }[] = [];
  const tools = {
    echo: (args: Record<string, unknown>, ctx: ToolCallContext) => {
      received.push({ tool: 'echo', args, ctx });
      return { echoed: args };
    },
    pay: {
      requiresConfirmation: true,
      execute: (args: Record<string, unknown>, ctx: ToolCallContext) => {
        received.push({ tool: 'pay', args, ctx });
        return `paid ${String(args.amount)}`;
      },
    },
    broken: () => {
      throw new Error('disk full');
    },
  };
  return { registry, received, tools };
}

describe('ToolExecutor', () => {
  it('runs tool:pre, the tool with the final args, then tool:post', async () => {
    const { registry, received, tools } = setup();
    const order: string[] = [];
    registry.register('tool:pre', (c) => {
      order.push('pre');
      return { action: 'modify', data: { ...c.toolArgs, added: true }, sideEffects: ['pre: added'] };
    });
    registry.register('tool:post', (c) => {
      order.push('post');
      return { action: 'modify', data: { wrapped: c.result } };
    });
    const executor = new ToolExecutor({ registry, tools });
    const out = await executor.execute('echo', { x: 1 }, { sessionId: 's', toolCallId: 'c1', metadata: { org: 'o' } });
    expect(order).toEqual(['pre', 'post']);
    expect(received[0]?.args).toEqual({ x: 1, added: true });
    expect(received[0]?.ctx).toMatchObject({
      toolName: 'echo',
      sessionId: 's',
      toolCallId: 'c1',
      metadata: { org: 'o' },
    });
    expect(out).toEqual({
      status: 'ok',
      result: { wrapped: { echoed: { x: 1, added: true } } },
      sideEffects: ['pre: added'],
    });
  });

  it('blocks a denied call with a reason written for the model, and fires tool:blocked', async () => {
    const { registry, received, tools } = setup();
    registry.register('tool:pre', policyHook({ deny_tools: ['echo'] }));
    const blockedSeen: unknown[] = [];
    registry.register('tool:blocked', (c) => void blockedSeen.push(c.data));
    const out = await new ToolExecutor({ registry, tools }).execute('echo', {});
    expect(out.status).toBe('blocked');
    if (out.status !== 'blocked') return;
    expect(out.reason).toBe(
      'The tool "echo" was not run: tool "echo" is not allowed by policy (matches "echo"). Do not retry the same call unchanged.',
    );
    expect(received).toEqual([]);
    expect(blockedSeen).toEqual([{ reason: out.reason }]);
  });

  it('reports a throwing tool as an error and fires tool:error', async () => {
    const { registry, tools } = setup();
    const errors: string[] = [];
    registry.register('tool:error', (c) => void errors.push((c.error as Error).message));
    const out = await new ToolExecutor({ registry, tools }).execute('broken', {});
    expect(out).toMatchObject({ status: 'error', error: { message: 'disk full' } });
    expect(errors).toEqual(['disk full']);
  });

  it('reports an unknown tool as an error', async () => {
    const { registry, tools } = setup();
    const out = await new ToolExecutor({ registry, tools }).execute('nope', {});
    expect(out.status).toBe('error');
  });

  it('sends ask_user outcomes through the gate: approved, denied, edited', async () => {
    const { registry, received, tools } = setup();
    registry.register('tool:pre', (c) =>
      Number(c.toolArgs?.amount) > 50_000 ? { action: 'ask_user', approval: { prompt: 'Large payment' } } : undefined,
    );
    const backend = fakeBackend();
    const executor = new ToolExecutor({
      registry,
      tools: { ...tools, pay: tools.pay.execute },
      gate: approvalGate({ backend }),
    });

    expect((await executor.execute('pay', { amount: 10 })).status).toBe('ok');
    expect(backend.asked).toHaveLength(0);

    backend.answer({ status: 'approved', allowed: true, respondedBy: 'feishu:ou_1' });
    expect(await executor.execute('pay', { amount: 60_000 })).toMatchObject({ status: 'ok', result: 'paid 60000' });
    expect(backend.asked[0]?.prompt).toBe('Large payment');

    backend.answer({ status: 'denied', allowed: false, reason: 'over budget', respondedBy: 'feishu:ou_1' });
    const denied = await executor.execute('pay', { amount: 70_000 });
    expect(denied).toMatchObject({ status: 'blocked' });
    expect(denied.status === 'blocked' && denied.reason).toContain('denied it: over budget');

    backend.answer({ status: 'approved', allowed: true, approvedArgs: { amount: 55_000 } });
    expect(await executor.execute('pay', { amount: 80_000 })).toMatchObject({ status: 'ok', result: 'paid 55000' });
    expect(received.map((r) => r.args.amount)).toEqual([10, 60_000, 55_000]);
  });

  it('gates tools flagged requiresConfirmation even when no hook asks', async () => {
    const { registry, tools } = setup();
    const backend = fakeBackend();
    backend.answer({ status: 'approved', allowed: true });
    const executor = new ToolExecutor({ registry, tools, gate: approvalGate({ backend }) });
    await executor.execute('pay', { amount: 1 }, { toolCallId: 'call_7' });
    await executor.execute('echo', {});
    expect(backend.asked.map((a) => a.tool_name)).toEqual(['pay']);
  });

  it('blocks calls that need a human when no gate is configured', async () => {
    const { registry, received, tools } = setup();
    const out = await new ToolExecutor({ registry, tools }).execute('pay', { amount: 1 });
    expect(out.status === 'blocked' && out.reason).toContain('no approval gate is configured');
    expect(received).toEqual([]);
  });

  it('an evaluation run bypasses only the gate: other hooks still deny', async () => {
    const { registry, received, tools } = setup();
    const backend = fakeBackend();
    registry.register('tool:pre', policyHook({ deny_tools: ['echo'] }));
    const executor = new ToolExecutor({ registry, tools, gate: approvalGate({ backend }) });
    expect((await executor.execute('pay', { amount: 1 }, { evaluationRun: true })).status).toBe('ok');
    expect((await executor.execute('echo', {}, { evaluationRun: true })).status).toBe('blocked');
    const evalExecutor = new ToolExecutor({
      registry: registry.child({ evaluationRun: true }),
      tools,
      gate: approvalGate({ backend }),
    });
    expect((await evalExecutor.execute('pay', { amount: 2 })).status).toBe('ok');
    expect(backend.asked).toEqual([]);
    expect(received.map((r) => r.args.amount)).toEqual([1, 2]);
  });

  it('blocks, fail closed, when the gate cannot get an answer', async () => {
    const { registry, tools } = setup();
    const backend = fakeBackend();
    backend.failNext(1, new Error('gateway unreachable'));
    const out = await new ToolExecutor({ registry, tools, gate: approvalGate({ backend }) }).execute('pay', {
      amount: 1,
    });
    expect(out.status === 'blocked' && out.reason).toContain('approval could not be obtained (gateway unreachable)');
  });

  it('withholds a result a tool:post hook denies', async () => {
    const { registry, tools } = setup();
    registry.register('tool:post', () => ({ action: 'deny', reason: 'contains secrets' }));
    const out = await new ToolExecutor({ registry, tools }).execute('echo', {});
    expect(out.status === 'blocked' && out.reason).toContain('result was withheld: contains secrets');
  });

  it('returns context injections and user messages for the agent loop', async () => {
    const { registry, tools } = setup();
    registry.register('tool:post', () => ({
      action: 'inject_context',
      contextInjection: 'lint: 2 errors',
      userMessage: 'Found lint issues',
      userMessageLevel: 'warning',
    }));
    const out = await new ToolExecutor({ registry, tools }).execute('echo', {});
    expect(out).toMatchObject({
      status: 'ok',
      contextInjections: [{ content: 'lint: 2 errors', role: 'system' }],
      userMessages: [{ message: 'Found lint issues', level: 'warning' }],
    });
  });
});
