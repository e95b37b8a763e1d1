import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { HookRegistry } from '../../../src/hooks/index.js';
import type { HookContext } from '../../../src/hooks/index.js';
import { memoryLogger } from './helpers.js';

function newRegistry() {
  const logger = memoryLogger();
  return { registry: new HookRegistry({ logger }), logger };
}

describe('HookRegistry — modifying points', () => {
  it('runs handlers by priority, lower first, ties in registration order', async () => {
    const { registry } = newRegistry();
    const seen: string[] = [];
    registry.register('tool:pre', () => void seen.push('c'), { priority: 30 });
    registry.register('tool:pre', () => void seen.push('a1'), { priority: 10 });
    registry.register('tool:pre', () => void seen.push('b'), { priority: 20 });
    registry.register('tool:pre', () => void seen.push('a2'), { priority: 10 });
    const outcome = await registry.run('tool:pre', { toolName: 't', toolArgs: {} });
    expect(seen).toEqual(['a1', 'a2', 'b', 'c']);
    expect(outcome).toEqual({ action: 'continue', sideEffects: [] });
  });

  it('chains modified data: each handler sees the previous one’s args', async () => {
    const { registry } = newRegistry();
    registry.register('tool:pre', (ctx) => ({ action: 'modify', data: { ...ctx.toolArgs, a: 1 } }), { priority: 1 });
    let seenByLast: unknown;
    registry.register(
      'tool:pre',
      (ctx) => {
        seenByLast = ctx.toolArgs;
        return { action: 'modify', data: { ...ctx.toolArgs, b: 2 } };
      },
      { priority: 2 },
    );
    const outcome = await registry.run('tool:pre', { toolName: 't', toolArgs: { x: 0 } });
    expect(seenByLast).toEqual({ x: 0, a: 1 });
    expect(outcome.action).toBe('modify');
    expect(outcome.data).toEqual({ x: 0, a: 1, b: 2 });
  });

  it('modifies the point’s own field: result on tool:post, text on message:received, messages on llm:input', async () => {
    const { registry } = newRegistry();
    registry.register('tool:post', (ctx) => ({ action: 'modify', data: `${String(ctx.result)}!` }));
    registry.register('message:received', (ctx) => ({ action: 'modify', data: ctx.text?.replace('darn', '****') }));
    registry.register('llm:input', (ctx) => ({
      action: 'modify',
      data: [...(ctx.messages ?? []), { role: 'system', content: 'be brief' }],
    }));
    expect((await registry.run('tool:post', { result: 'done' })).data).toBe('done!');
    expect((await registry.run('message:received', { text: 'darn it' })).data).toBe('**** it');
    const llm = await registry.run('llm:input', { messages: [{ role: 'user', content: 'hi' }] });
    expect(llm.data).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'be brief' },
    ]);
  });

  it('a deny stops the chain: later handlers never run', async () => {
    const { registry } = newRegistry();
    const ran: string[] = [];
    registry.register('tool:pre', () => void ran.push('first'), { priority: 1 });
    registry.register('tool:pre', () => ({ action: 'deny', reason: 'no' }), { priority: 2, name: 'blocker' });
    registry.register('tool:pre', () => void ran.push('never'), { priority: 3 });
    const outcome = await registry.run('tool:pre', { toolName: 't' });
    expect(ran).toEqual(['first']);
    expect(outcome).toMatchObject({ action: 'deny', reason: 'no', decidedBy: 'blocker' });
  });

  it('resolves precedence deny > ask_user > inject_context > modify > continue', async () => {
    const { registry } = newRegistry();
    registry.register('tool:pre', () => ({ action: 'modify', data: { a: 1 } }), { priority: 1 });
    registry.register('tool:pre', () => ({ action: 'inject_context', contextInjection: 'note' }), { priority: 2 });
    expect((await registry.run('tool:pre', { toolArgs: {} })).action).toBe('inject_context');
    registry.register('tool:pre', () => ({ action: 'ask_user', reason: 'sensitive', approval: { prompt: 'ok?' } }), {
      priority: 3,
      name: 'asker',
    });
    const asked = await registry.run('tool:pre', { toolArgs: {} });
    expect(asked).toMatchObject({
      action: 'ask_user',
      reason: 'sensitive',
      decidedBy: 'asker',
      approval: { prompt: 'ok?', source: 'asker' },
      data: { a: 1 },
    });
    expect(asked.contextInjections).toEqual([
      { content: 'note', role: 'system', ephemeral: false, source: 'anonymous' },
    ]);
    registry.register('tool:pre', () => ({ action: 'deny', reason: 'policy' }), { priority: 4 });
    const denied = await registry.run('tool:pre', { toolArgs: {} });
    expect(denied.action).toBe('deny');
    expect(denied.reason).toBe('policy');
  });

  it('stop skips the rest of the point without an error and keeps the stopper’s result', async () => {
    const { registry, logger } = newRegistry();
    const ran: string[] = [];
    registry.register('tool:pre', () => ({ action: 'modify', data: { a: 2 }, stop: true }), {
      priority: 1,
      name: 'stopper',
    });
    registry.register('tool:pre', () => void ran.push('later'), { priority: 2 });
    const outcome = await registry.run('tool:pre', { toolArgs: { a: 1 } });
    expect(ran).toEqual([]);
    expect(outcome).toMatchObject({ action: 'modify', data: { a: 2 }, stoppedBy: 'stopper' });
    expect(logger.lines).toEqual([]);
  });

  it('accepts FIM One’s object form: execute runs only when shouldTrigger says so', async () => {
    const { registry } = newRegistry();
    registry.register('tool:pre', {
      name: 'sql_guard',
      priority: 5,
      shouldTrigger: (ctx) => ctx.toolName?.startsWith('sql_') ?? false,
      execute: () => ({ action: 'deny', reason: 'read-only', sideEffects: ['sql_guard: blocked'] }),
    });
    expect((await registry.run('tool:pre', { toolName: 'http_get' })).action).toBe('continue');
    const outcome = await registry.run('tool:pre', { toolName: 'sql_write' });
    expect(outcome).toMatchObject({ action: 'deny', decidedBy: 'sql_guard', sideEffects: ['sql_guard: blocked'] });
    expect(registry.list('tool:pre')[0]).toMatchObject({ name: 'sql_guard', priority: 5 });
  });

  it('register returns an unregister function for exactly that registration', async () => {
    const { registry } = newRegistry();
    const handler = () => ({ action: 'deny' as const, reason: 'x' });
    const off1 = registry.register('tool:pre', handler, { name: 'one' });
    registry.register('tool:pre', () => undefined, { name: 'two' });
    off1();
    off1();
    expect(registry.list('tool:pre').map((h) => h.name)).toEqual(['two']);
    expect((await registry.run('tool:pre', {})).action).toBe('continue');
  });

  it('passes sessionId, agentId, userId and metadata to handlers', async () => {
    const { registry } = newRegistry();
    let seen: HookContext | undefined;
    registry.register('tool:pre', (ctx) => void (seen = ctx));
    await registry.run('tool:pre', {
      toolName: 't',
      toolArgs: { q: 1 },
      sessionId: 's',
      agentId: 'a',
      userId: 'u',
      metadata: { org: 'o' },
    });
    expect(seen).toMatchObject({
      point: 'tool:pre',
      toolName: 't',
      toolArgs: { q: 1 },
      sessionId: 's',
      agentId: 'a',
      userId: 'u',
      metadata: { org: 'o' },
    });
  });

  it('rejects invalid point names and handlers', () => {
    const { registry } = newRegistry();
    expect(() => registry.register('nocolon', () => undefined)).toThrow(/invalid hook point/);
    expect(() => registry.register('tool:pre', {} as never)).toThrow(/execute/);
  });
});

describe('HookRegistry — failure policy', () => {
  it('a throwing tool:pre handler denies (fail closed) and names itself in the reason', async () => {
    const { registry, logger } = newRegistry();
    const ran: string[] = [];
    registry.register(
      'tool:pre',
      () => {
        throw new Error('db down');
      },
      { name: 'org_check', priority: 1 },
    );
    registry.register('tool:pre', () => void ran.push('later'), { priority: 2 });
    const outcome = await registry.run('tool:pre', { toolName: 't' });
    expect(outcome.action).toBe('deny');
    expect(outcome.reason).toContain('org_check');
    expect(outcome.reason).toContain('db down');
    expect(ran).toEqual([]);
    expect(logger.lines[0]).toMatchObject({ level: 'error', fields: { hook: 'org_check' } });
  });

  it('a failOpen tool:pre handler that throws is skipped', async () => {
    const { registry } = newRegistry();
    registry.register(
      'tool:pre',
      () => {
        throw new Error('flaky');
      },
      { failOpen: true },
    );
    registry.register('tool:pre', () => ({ action: 'modify', data: { ok: true } }));
    const outcome = await registry.run('tool:pre', { toolArgs: {} });
    expect(outcome).toMatchObject({ action: 'modify', data: { ok: true } });
  });

  it('a handler that returns garbage counts as a failure', async () => {
    const { registry } = newRegistry();
    registry.register('tool:pre', () => ({ action: 'explode' }) as never, { name: 'bad' });
    const outcome = await registry.run('tool:pre', {});
    expect(outcome.action).toBe('deny');
    expect(outcome.reason).toContain('unknown hook action');
  });

  it('times a slow tool:pre handler out on the injected clock and denies', async () => {
    const clock = new ManualClock();
    const registry = new HookRegistry({ clock, logger: memoryLogger() });
    registry.register('tool:pre', () => new Promise(() => undefined), { name: 'slow', timeoutMs: 5000 });
    const pending = registry.run('tool:pre', { toolName: 't' });
    await clock.advance(4999);
    let settled = false;
    void pending.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    const outcome = await pending;
    expect(outcome.action).toBe('deny');
    expect(outcome.reason).toContain('timed out after 5000 ms');
  });

  it('elsewhere a throwing or timed-out handler is logged and skipped', async () => {
    const clock = new ManualClock();
    const logger = memoryLogger();
    const registry = new HookRegistry({ clock, logger, defaultTimeoutMs: 100 });
    registry.register(
      'tool:post',
      () => {
        throw new Error('boom');
      },
      { name: 'thrower' },
    );
    registry.register('tool:post', () => new Promise(() => undefined), { name: 'hanger' });
    registry.register('tool:post', (ctx) => ({ action: 'modify', data: `${String(ctx.result)}+` }), { name: 'ok' });
    const pending = registry.run('tool:post', { result: 'r' });
    // The hanger's timer is armed only once the chain reaches it.
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(1));
    await clock.advance(100);
    const outcome = await pending;
    expect(outcome).toMatchObject({ action: 'modify', data: 'r+' });
    expect(logger.lines.map((l) => l.fields?.hook)).toEqual(['thrower', 'hanger']);
    expect(logger.lines[1]?.fields?.timedOut).toBe(true);
  });
});

describe('HookRegistry — notification points', () => {
  it('runs session:start handlers in parallel and isolates each failure', async () => {
    const { registry, logger } = newRegistry();
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The first handler waits for the second: this only finishes if they run at the same time.
    registry.register(
      'session:start',
      async () => {
        started.push('a');
        await gate;
      },
      { priority: 1 },
    );
    registry.register(
      'session:start',
      () => {
        started.push('b');
        release();
      },
      { priority: 2 },
    );
    registry.register(
      'session:start',
      () => {
        throw new Error('analytics down');
      },
      { name: 'analytics', priority: 3 },
    );
    registry.register('session:start', () => ({ action: 'inject_context', contextInjection: 'user prefers Chinese' }), {
      name: 'prefs',
    });
    const outcome = await registry.run('session:start', { sessionId: 's1' });
    expect(started).toEqual(['a', 'b']);
    expect(outcome.action).toBe('inject_context');
    expect(outcome.contextInjections?.[0]).toMatchObject({ content: 'user prefers Chinese', source: 'prefs' });
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ hook: 'analytics' }) }),
    ]);
  });

  it('ignores deny and modify at notification points', async () => {
    const { registry, logger } = newRegistry();
    registry.register('session:end', () => ({ action: 'deny', reason: 'nope' }));
    registry.register('tool:error', () => ({ action: 'modify', data: 1 }));
    expect((await registry.run('session:end', {})).action).toBe('continue');
    expect((await registry.run('tool:error', { error: new Error('x') })).action).toBe('continue');
    expect(logger.lines.map((l) => l.message)).toEqual([
      'deny ignored at a notification point',
      'modify ignored at a notification point',
    ]);
  });

  it('custom points chain by default and broadcast when declared as notification', async () => {
    const { registry } = newRegistry();
    registry.register('deploy:plan', (ctx) => ({ action: 'modify', data: { ...(ctx.data as object), checked: true } }));
    expect((await registry.run('deploy:plan', { data: { env: 'prod' } })).data).toEqual({ env: 'prod', checked: true });
    registry.declarePoint('deploy:done', { kind: 'notification' });
    const seen: string[] = [];
    registry.register('deploy:done', () => void seen.push('x'));
    registry.register('deploy:done', () => ({ action: 'deny' }));
    expect((await registry.run('deploy:done', {})).action).toBe('continue');
    expect(seen).toEqual(['x']);
    expect(() => registry.declarePoint('tool:pre', { kind: 'notification' })).toThrow(/built-in/);
  });
});

describe('HookRegistry — children, evaluation runs, contributions', () => {
  it('a child inherits its parent’s hooks, live, and adds its own without touching the parent', async () => {
    const { registry } = newRegistry();
    const calls: string[] = [];
    registry.register('tool:pre', () => void calls.push('parent'), { priority: 10 });
    const child = registry.child();
    child.register('tool:pre', () => void calls.push('child'), { priority: 5 });
    registry.register('tool:pre', () => ({ action: 'deny', reason: 'added later' }), { priority: 20 });
    const outcome = await child.run('tool:pre', { toolName: 't' });
    expect(calls).toEqual(['child', 'parent']);
    expect(outcome.reason).toBe('added later');
    calls.length = 0;
    await registry.run('tool:pre', {});
    expect(calls).toEqual(['parent']);
    expect(child.list('tool:pre').map((h) => h.inherited)).toEqual([false, true, true]);
  });

  it('the evaluation-run flag reaches handlers and is inherited by children', async () => {
    const registry = new HookRegistry({ logger: memoryLogger(), evaluationRun: true });
    const seen: unknown[] = [];
    registry.register('tool:pre', (ctx) => void seen.push(ctx.evaluationRun));
    const child = registry.child();
    await child.run('tool:pre', {});
    expect(child.evaluationRun).toBe(true);
    expect(registry.child({ evaluationRun: false }).evaluationRun).toBe(false);
    expect(seen).toEqual([true]);
  });

  it('collects contributions from every contributor, parent first, skipping failures and empties', async () => {
    const { registry, logger } = newRegistry();
    registry.registerContributor('capabilities', () => ['search']);
    registry.registerContributor('capabilities', () => undefined);
    registry.registerContributor(
      'capabilities',
      () => {
        throw new Error('broken');
      },
      'broken_module',
    );
    const child = registry.child();
    const off = child.registerContributor('capabilities', async () => ['deploy']);
    expect(await child.collectContributions('capabilities')).toEqual([['search'], ['deploy']]);
    expect(await registry.collectContributions('capabilities')).toEqual([['search']]);
    off();
    expect(await child.collectContributions('capabilities')).toEqual([['search']]);
    expect(await child.collectContributions('nothing')).toEqual([]);
    expect(logger.lines[0]?.fields).toMatchObject({ contributor: 'broken_module' });
  });
});
