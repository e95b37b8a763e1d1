import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { HookRegistry, approvalGate } from '../../../src/hooks/index.js';
import type { HookContext } from '../../../src/hooks/index.js';
import { fakeBackend } from './fake-backend.js';
import { memoryLogger } from './helpers.js';

const ctx = (over: Partial<HookContext> = {}): HookContext => ({
  point: 'tool:pre',
  toolName: 'deploy',
  toolArgs: { env: 'prod' },
  metadata: {},
  ...over,
});

describe('approvalGate', () => {
  it('files a request shaped like POST /v1/requests and maps approval to continue', async () => {
    const backend = fakeBackend();
    backend.answer({ status: 'approved', allowed: true, respondedBy: 'slack:U1', requestId: 'r1' });
    const gate = approvalGate({
      backend,
      tools: ['deploy*'],
      timeoutS: 60,
      approvers: ['slack:U1'],
      channels: [{ type: 'slack', target: 'C1' }],
    });
    const result = await gate.decide(ctx({ toolCallId: 'call_1', sessionId: 's1', agentId: 'bot', userId: 'u1' }));
    expect(result).toEqual({
      action: 'continue',
      requestId: 'r1',
      sideEffects: ['approval_gate: approved by slack:U1 (request r1)'],
    });
    expect(backend.asked[0]).toEqual({
      tool_name: 'deploy',
      tool_args: { env: 'prod' },
      prompt: 'bot wants to run "deploy".',
      agent_id: 'bot',
      user_id: 'u1',
      session_id: 's1',
      tool_call_id: 'call_1',
      idempotency_key: 'hook:bot:s1:call_1',
      timeout_s: 60,
      channels: [{ type: 'slack', target: 'C1' }],
      approvers: ['slack:U1'],
    });
  });

  it('maps a denial to deny with the approver’s reason, and edited args to modify', async () => {
    const backend = fakeBackend();
    const gate = approvalGate({ backend });
    backend.answer({ status: 'denied', allowed: false, reason: 'not on a Friday', respondedBy: 'web:alice' });
    const denied = await gate.decide(ctx());
    expect(denied.action).toBe('deny');
    expect(denied.reason).toBe('a human approver (web:alice) denied it: not on a Friday');
    backend.answer({ status: 'approved', allowed: true, approvedArgs: { env: 'staging' } });
    expect(await gate.decide(ctx())).toMatchObject({ action: 'modify', data: { env: 'staging' } });
    backend.answer({ status: 'expired', allowed: false });
    expect((await gate.decide(ctx())).reason).toContain('denied by default');
    backend.answer({ status: 'expired', allowed: true });
    expect((await gate.decide(ctx())).action).toBe('continue');
    backend.answer({ status: 'cancelled', allowed: false, reason: 'agent stopped' });
    expect((await gate.decide(ctx())).reason).toBe('the approval request was cancelled: agent stopped');
  });

  it('an ask_user request overrides prompt, options, timeout and default', async () => {
    const backend = fakeBackend();
    backend.answer({ status: 'approved', allowed: true });
    const gate = approvalGate({ backend, prompt: 'generic', timeoutS: 10 });
    await gate.decide(ctx(), { prompt: 'Pay ¥60k?', options: ['Pay', 'Hold'], timeoutS: 900, default: 'allow' });
    expect(backend.asked[0]).toMatchObject({
      prompt: 'Pay ¥60k?',
      options: ['Pay', 'Hold'],
      timeout_s: 900,
      on_timeout: 'approve',
    });
  });

  it('needs approval for tools flagged requiresConfirmation or matching a pattern', () => {
    const gate = approvalGate({ backend: fakeBackend(), tools: ['pay_*', 'delete_?'] });
    expect(gate.requiresApproval(ctx({ toolName: 'pay_invoice' }))).toBe(true);
    expect(gate.requiresApproval(ctx({ toolName: 'delete_x' }))).toBe(true);
    expect(gate.requiresApproval(ctx({ toolName: 'delete_xy' }))).toBe(false);
    expect(gate.requiresApproval(ctx({ toolName: 'read', tool: { name: 'read', requiresConfirmation: true } }))).toBe(
      true,
    );
    expect(gate.requiresApproval(ctx({ toolName: 'read', metadata: { requiresConfirmation: true } }))).toBe(true);
    expect(gate.requiresApproval(ctx({ toolName: 'read' }))).toBe(false);
  });

  it('works as a registered tool:pre hook, and evaluation runs bypass it', async () => {
    const backend = fakeBackend();
    const registry = new HookRegistry({ logger: memoryLogger() });
    registry.register('tool:pre', approvalGate({ backend, tools: ['deploy'] }));
    backend.answer({ status: 'denied', allowed: false, reason: 'no' });
    expect((await registry.run('tool:pre', { toolName: 'deploy', toolArgs: {} })).action).toBe('deny');
    expect((await registry.run('tool:pre', { toolName: 'deploy', toolArgs: {}, evaluationRun: true })).action).toBe(
      'continue',
    );
    expect(
      (await registry.child({ evaluationRun: true }).run('tool:pre', { toolName: 'deploy', toolArgs: {} })).action,
    ).toBe('continue');
    expect(backend.asked).toHaveLength(1);
  });

  it('retries a failed ask with the same idempotency key, on the injected clock', async () => {
    const clock = new ManualClock();
    const backend = fakeBackend();
    backend.failNext(2, new Error('ECONNREFUSED'));
    backend.answer({ status: 'approved', allowed: true });
    const gate = approvalGate({ backend, clock, retry: { attempts: 3, delayMs: 1000 } });
    const pending = gate.decide(ctx({ toolCallId: 'call_9' }));
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(1));
    await clock.advance(1000);
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(1));
    await clock.advance(2000);
    expect((await pending).action).toBe('continue');
    const keys = backend.asked.map((a) => a.idempotency_key);
    expect(keys[0]).toMatch(/^hook:-:[0-9a-f-]{36}:call_9$/);
    expect(keys).toEqual([keys[0], keys[0], keys[0]]);
  });

  it('keys the calls of unrelated agents apart by default, though their call ids repeat (issue 58)', async () => {
    const keyOf = async (over: Partial<HookContext>) => {
      const backend = fakeBackend();
      backend.answer({ status: 'approved', allowed: true });
      await approvalGate({ backend }).decide(ctx({ toolCallId: 'call_1', ...over }));
      return backend.asked[0]!.idempotency_key;
    };
    // No session: each gate (each agent process) has a key of its own.
    expect(await keyOf({})).not.toBe(await keyOf({}));
    // A session keeps its key across gates (a restarted host re-attaches), but not across agents.
    expect(await keyOf({ agentId: 'a', sessionId: 's' })).toBe(await keyOf({ agentId: 'a', sessionId: 's' }));
    expect(await keyOf({ agentId: 'a', sessionId: 's' })).not.toBe(await keyOf({ agentId: 'b', sessionId: 's' }));
  });

  it('does not retry without an idempotency key, nor errors marked retryable: false', async () => {
    const backend = fakeBackend();
    const gate = approvalGate({ backend });
    backend.failNext(1, new Error('down'));
    await expect(gate.decide(ctx())).rejects.toThrow('down');
    backend.failNext(1, Object.assign(new Error('409 conflict'), { retryable: false }));
    await expect(gate.decide(ctx({ toolCallId: 'c' }))).rejects.toThrow('409');
    expect(backend.asked).toHaveLength(2);
  });

  it('refuses to build without a backend', () => {
    expect(() => approvalGate({} as never)).toThrow(/exactly one of/);
    expect(() => approvalGate({ backend: fakeBackend(), url: 'http://127.0.0.1:1' })).toThrow(/exactly one of/);
  });
});
