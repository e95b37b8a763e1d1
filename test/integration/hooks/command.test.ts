// The command hook with real child processes: `sh -c` and `node -e`.
import { describe, expect, it } from 'vitest';
import { HookRegistry, ToolExecutor, commandHook, loadHookConfig } from '../../../src/hooks/index.js';
import { memoryLogger } from '../../unit/hooks/helpers.js';

const node = (script: string) => `"${process.execPath}" -e '${script}'`;

function run(
  command: string,
  input: { toolName?: string; toolArgs?: Record<string, unknown> } = {},
  options: { failOpen?: boolean; point?: string } = {},
) {
  const registry = new HookRegistry({ logger: memoryLogger() });
  registry.register(options.point ?? 'tool:pre', commandHook({ command, timeout_s: 10 }), {
    failOpen: options.failOpen,
  });
  return registry.run(options.point ?? 'tool:pre', {
    toolName: 'bash',
    toolArgs: { command: 'ls' },
    sessionId: 's1',
    ...input,
  });
}

describe('command hook', () => {
  it('passes the context as JSON on stdin', async () => {
    // The command echoes what it read back as a context injection, so the test sees exactly what arrived.
    const script =
      'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify({action:"inject_context",context_injection:s})))';
    const out = await run(node(script), { toolArgs: { command: 'rm x' } });
    const seen = JSON.parse(out.contextInjections?.[0]?.content ?? '{}') as Record<string, unknown>;
    expect(seen).toMatchObject({
      hook_point: 'tool:pre',
      tool_name: 'bash',
      tool_args: { command: 'rm x' },
      session_id: 's1',
      metadata: {},
    });
  });

  it('empty stdout and exit 0 mean continue', async () => {
    expect((await run('true')).action).toBe('continue');
  });

  it('exit code 2 denies with stderr as the reason', async () => {
    const out = await run('echo "no deletes on Fridays" >&2; exit 2');
    expect(out).toMatchObject({ action: 'deny', reason: 'no deletes on Fridays' });
  });

  it('a JSON answer can modify arguments, deny with Claude Code’s decision field, or ask the user', async () => {
    const modify = await run(`echo '{"action":"modify","data":{"command":"ls -l"},"side_effects":["cmd: rewrote"]}'`);
    expect(modify).toMatchObject({ action: 'modify', data: { command: 'ls -l' }, sideEffects: ['cmd: rewrote'] });
    const block = await run(`echo '{"decision":"block","reason":"blocked by script"}'`);
    expect(block).toMatchObject({ action: 'deny', reason: 'blocked by script' });
    const ask = await run(`echo '{"action":"ask_user","approval":{"prompt":"Sure?","timeout_s":60}}'`);
    expect(ask).toMatchObject({ action: 'ask_user', approval: { prompt: 'Sure?', timeoutS: 60 } });
  });

  it('other exit codes and non-JSON output are failures: tool:pre fails closed, unless fail-open', async () => {
    const crashed = await run('echo boom >&2; exit 1');
    expect(crashed.action).toBe('deny');
    expect(crashed.reason).toContain('command exited with code 1: boom');
    expect((await run('echo not json')).reason).toContain('not JSON');
    expect((await run('exit 1', {}, { failOpen: true })).action).toBe('continue');
  });

  it('is killed after timeout_s', async () => {
    const registry = new HookRegistry({ logger: memoryLogger() });
    registry.register('tool:pre', commandHook({ command: 'sleep 5', timeout_s: 0.2 }));
    const out = await registry.run('tool:pre', { toolName: 'bash' });
    expect(out.reason).toContain('command timed out after 0.2 s');
  });

  it('runs from YAML through the executor, rewriting a tool result at tool:post', async () => {
    const registry = new HookRegistry({ logger: memoryLogger() });
    const upper = node(
      'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const c=JSON.parse(s);console.log(JSON.stringify({action:"modify",data:String(c.result).toUpperCase()}))})',
    );
    loadHookConfig(
      {
        hooks: {
          'tool:pre': [
            {
              use: 'command',
              config: { command: 'test "$MODE" = strict && exit 2 || exit 0', env: { MODE: 'lenient' } },
            },
          ],
          'tool:post': [{ use: 'command', config: { command: upper } }],
        },
      },
      { registry },
    );
    const out = await new ToolExecutor({ registry, tools: { greet: () => 'hello' } }).execute('greet', {});
    expect(out).toMatchObject({ status: 'ok', result: 'HELLO' });
  });
});
