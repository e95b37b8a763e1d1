import { describe, expect, it } from 'vitest';
import { HookRegistry } from '../../../src/hooks/index.js';
import { memoryLogger } from './helpers.js';

describe('context injection budgets', () => {
  it('drops an injection over the per-injection cap (10 KiB default) with a warning', async () => {
    const logger = memoryLogger();
    const registry = new HookRegistry({ logger });
    registry.register('tool:post', () => ({ action: 'inject_context', contextInjection: 'x'.repeat(10 * 1024 + 1) }), {
      name: 'big',
    });
    registry.register(
      'tool:post',
      () => ({ action: 'inject_context', contextInjection: 'small', ephemeral: true, contextInjectionRole: 'user' }),
      { name: 'small' },
    );
    const outcome = await registry.run('tool:post', { result: 1 });
    expect(outcome.contextInjections).toEqual([{ content: 'small', role: 'user', ephemeral: true, source: 'small' }]);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'context injection dropped',
        fields: expect.objectContaining({ hook: 'big', why: 'injection_too_large' }),
      }),
    ]);
  });

  it('enforces a per-turn budget per session, reset by beginTurn', async () => {
    const logger = memoryLogger();
    const registry = new HookRegistry({ logger, injectionBudget: { maxInjectionBytes: 100, maxTurnBytes: 250 } });
    registry.register('llm:input', () => ({ action: 'inject_context', contextInjection: 'y'.repeat(100) }));
    const run = (sessionId: string) => registry.run('llm:input', { sessionId, messages: [] });
    expect((await run('a')).action).toBe('inject_context');
    expect((await run('a')).action).toBe('inject_context');
    const third = await run('a');
    expect(third.action).toBe('continue');
    expect(third.contextInjections).toBeUndefined();
    expect((await run('b')).action).toBe('inject_context');
    expect(registry.injectionBudget.spent('a')).toBe(200);
    registry.beginTurn('a');
    expect((await run('a')).action).toBe('inject_context');
    expect(logger.lines.map((l) => l.fields?.why)).toEqual(['turn_budget_exhausted']);
  });

  it('a child registry spends from the same turn budget as its parent', async () => {
    const registry = new HookRegistry({ logger: memoryLogger(), injectionBudget: { maxTurnBytes: 10 } });
    const child = registry.child();
    child.register('tool:post', () => ({ action: 'inject_context', contextInjection: '123456' }));
    registry.register('tool:post', () => ({ action: 'inject_context', contextInjection: 'abcdef' }));
    const outcome = await child.run('tool:post', { sessionId: 's' });
    expect(outcome.contextInjections?.map((i) => i.content)).toEqual(['123456']);
  });
});
