import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/utils/clock.js';
import {
  HookRegistry,
  MemoryAuditSink,
  ToolExecutor,
  auditLogHook,
  loadHookConfig,
  rateLimitHook,
  truncateResultHook,
} from '../../../../src/hooks/index.js';
import { memoryLogger } from '../helpers.js';

describe('truncate_result', () => {
  it('cuts results over 8000 characters by default and says so', async () => {
    const registry = new HookRegistry({ logger: memoryLogger() });
    registry.register('tool:post', truncateResultHook());
    const long = 'a'.repeat(9000);
    const out = await registry.run('tool:post', { result: long });
    expect(out.action).toBe('modify');
    expect(out.data).toBe(`${'a'.repeat(8000)}\n[… truncated 1000 characters of 9000]`);
    expect(out.sideEffects).toEqual(['truncate_result: cut 1000 of 9000 characters']);
    expect((await registry.run('tool:post', { result: 'a'.repeat(8000) })).action).toBe('continue');
  });

  it('measures non-string results as JSON', async () => {
    const registry = new HookRegistry({ logger: memoryLogger() });
    registry.register('tool:post', truncateResultHook({ max_chars: 10 }));
    const out = await registry.run('tool:post', { result: { rows: [1, 2, 3, 4, 5] } });
    expect(out.data).toBe('{"rows":[1\n[… truncated 10 characters of 20]');
  });
});

describe('rate_limit', () => {
  it('allows max_calls per window per tool per user on the injected clock', async () => {
    const clock = new ManualClock();
    const registry = new HookRegistry({ logger: memoryLogger(), clock });
    registry.register('tool:pre', rateLimitHook({ max_calls: 2, window_s: 60 }, clock));
    const call = (toolName: string, userId: string) => registry.run('tool:pre', { toolName, userId });
    expect((await call('search', 'alice')).action).toBe('continue');
    expect((await call('search', 'alice')).action).toBe('continue');
    const third = await call('search', 'alice');
    expect(third).toMatchObject({
      action: 'deny',
      reason: 'rate limit reached: "search" may run 2 times per 60 s per user; try again in 60 s',
    });
    expect((await call('search', 'bob')).action).toBe('continue');
    expect((await call('fetch', 'alice')).action).toBe('continue');
    await clock.advance(30_000);
    expect((await call('search', 'alice')).reason).toContain('try again in 30 s');
    await clock.advance(30_001);
    expect((await call('search', 'alice')).action).toBe('continue');
  });

  it('reads the registry clock when loaded from YAML', async () => {
    const clock = new ManualClock();
    const registry = new HookRegistry({ logger: memoryLogger(), clock });
    loadHookConfig(
      'hooks:\n  tool:pre:\n    - use: rate_limit\n      config: { max_calls: 1, window_s: 10, per: global, tools: ["send_*"] }\n',
      { registry },
    );
    expect((await registry.run('tool:pre', { toolName: 'send_mail', userId: 'a' })).action).toBe('continue');
    expect((await registry.run('tool:pre', { toolName: 'send_mail', userId: 'b' })).action).toBe('deny');
    expect((await registry.run('tool:pre', { toolName: 'read_mail', userId: 'b' })).action).toBe('continue');
    await clock.advance(10_000);
    expect((await registry.run('tool:pre', { toolName: 'send_mail', userId: 'b' })).action).toBe('continue');
  });
});

describe('audit_log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-audit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records calls, results, errors and blocked calls through the executor', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    const registry = new HookRegistry({ logger: memoryLogger(), clock });
    const sink = new MemoryAuditSink();
    const audit = auditLogHook(sink, { include_result: true }, clock);
    for (const point of ['tool:pre', 'tool:post', 'tool:error', 'tool:blocked'])
      registry.register(point, audit, { priority: 0 });
    registry.register('tool:pre', (c) => (c.toolName === 'nuke' ? { action: 'deny', reason: 'never' } : undefined));
    const executor = new ToolExecutor({
      registry,
      tools: { ok: () => 42, fail: () => Promise.reject(new Error('nope')), nuke: () => 0 },
    });
    await executor.execute('ok', { a: 1 }, { sessionId: 's', userId: 'u', agentId: 'a', toolCallId: 'c1' });
    await executor.execute('fail', {});
    await executor.execute('nuke', {});
    expect(sink.entries.map((e) => [e.event, e.tool_name])).toEqual([
      ['call', 'ok'],
      ['result', 'ok'],
      ['call', 'fail'],
      ['error', 'fail'],
      ['call', 'nuke'],
      ['blocked', 'nuke'],
    ]);
    expect(sink.entries[0]).toEqual({
      at: '2026-01-02T03:04:05.000Z',
      event: 'call',
      tool_name: 'ok',
      tool_call_id: 'c1',
      session_id: 's',
      agent_id: 'a',
      user_id: 'u',
      args: { a: 1 },
    });
    expect(sink.entries[1]?.result).toBe(42);
    expect(sink.entries[3]?.error).toBe('nope');
    expect(sink.entries[5]?.reason).toContain('never');
  });

  it('appends JSON lines to a file when loaded with file:, at every tool point', async () => {
    const file = join(dir, 'logs', 'audit.jsonl');
    const registry = new HookRegistry({ logger: memoryLogger() });
    const loaded = loadHookConfig(
      `hooks:\n  tool:pre:\n    - use: audit_log\n      config: { file: "${file}", include_args: false }\n`,
      { registry },
    );
    expect(loaded.registered.map((r) => r.point)).toEqual(['tool:pre', 'tool:post', 'tool:error', 'tool:blocked']);
    await new ToolExecutor({ registry, tools: { ok: () => 1 } }).execute('ok', { secret: 'x' });
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toEqual(['call', 'result']);
    expect(lines[0]).not.toHaveProperty('args');
  });
});
