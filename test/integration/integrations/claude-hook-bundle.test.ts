/**
 * The `claude-hook` bundle (`dist/hook/hook.cjs`, written by `npm run build`'s second step) as the published
 * package runs it: `bin/tollgate.js` in a directory laid out like the package (no `src/*.ts`, so the bin loads the
 * bundle), against `tollgate serve` as a child process. Every answer, exit code and message must be the one the
 * unbundled hook (the sources, compiled file by file: see spawnCli) gives for the same call; and the bundle must hold
 * the hook's own modules only.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON3 } from '../../support/python.js';
import { buildHookPackage } from '../../../bench/built-gateway.js';
import { ensureBuilt, ROOT } from '../../helpers/built-package.js';
import type { ChildGateway } from '../../helpers/child-gateway.js';
import {
  childGatewaysPerTest,
  clientEnv,
  decide,
  pendingRequest,
  spawnCli,
  spawnProcess,
  type CliResult,
  type RunningCli,
} from './helpers.js';

// A tsc build, gateways and CLIs as child processes on two shared cores.
const SLOW = 300_000;

const { gateway } = childGatewaysPerTest('claude-hook-bundle');

let bundled: { bin: string; metafile: Metafile };

beforeAll(async () => {
  await ensureBuilt(); // dist/src/: what the bundled hook loads only after a failure
  bundled = await buildHookPackage(join(ROOT, 'dist/src/cli/main.js'));
}, SLOW);

afterAll(() => rmSync(dirname(dirname(bundled.bin)), { recursive: true, force: true }));

type Options = { stdin?: string; env?: Record<string, string> };
/** The same call through both: the unbundled CLI and the package layout's bin (the bundle). */
const both = (args: string[], options: (path: 'source' | 'bundle') => Options): [RunningCli, RunningCli] => [
  spawnCli(['claude-hook', ...args], options('source')),
  spawnProcess(process.execPath, [bundled.bin, 'claude-hook', ...args], options('bundle')),
];
const done = async ([a, b]: [RunningCli, RunningCli]): Promise<[CliResult, CliResult]> => [await a.done, await b.done];

const input = (
  toolUseId: string,
  event = 'PreToolUse',
  toolInput: Record<string, unknown> = { command: 'rm -rf build' },
) =>
  JSON.stringify({
    session_id: `sess-${toolUseId}`,
    cwd: '/work/project',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: toolInput,
    tool_use_id: toolUseId,
  });

/**
 * Each step and each path asks for a call of its own: the same command again is the same call (it re-attaches to a
 * pending request, or gets the verdict of a decided one, as an agent's retry does), and each answer is compared here.
 */
const ownCall = (step: string, path: string) => ({ command: `rm -rf build-${step}-${path}` });

/** Decides the pending request of each path's call alike; resolves with the request ids (source, bundle). */
async function decideBoth(
  gw: ChildGateway,
  id: (path: string) => string,
  decision: Parameters<typeof decide>[2],
): Promise<string[]> {
  const ids: string[] = [];
  for (const path of ['source', 'bundle']) {
    const request = await pendingRequest(gw, (r) => r.tool_call_id === id(path));
    await decide(gw, request.id, decision);
    ids.push(request.id);
  }
  return ids;
}

describe('the claude-hook bundle', { timeout: SLOW }, () => {
  it('answers verdicts, "still pending" and receipts as the unbundled hook does', async () => {
    const gw = await gateway();
    const env = clientEnv(gw);

    const allowed = both(['--timeout', '60'], (path) => ({
      stdin: input(`toolu_allow_${path}`, 'PreToolUse', ownCall('allow', path)),
      env,
    }));
    await decideBoth(gw, (path) => `toolu_allow_${path}`, {
      decision: 'approve',
      reason: 'build dir only',
      approved_args: { command: 'rm -rf ./build' },
    });
    const [sourceAllow, bundleAllow] = await done(allowed);
    expect(sourceAllow).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(sourceAllow.stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'rm -rf ./build' } },
    });
    expect(bundleAllow).toEqual(sourceAllow);

    const denied = both([], (path) => ({
      stdin: input(`toolu_deny_${path}`, 'PreToolUse', ownCall('deny', path)),
      env,
    }));
    await decideBoth(gw, (path) => `toolu_deny_${path}`, {
      decision: 'deny',
      approver: 'web:bob',
      reason: 'not on main',
    });
    const [sourceDeny, bundleDeny] = await done(denied);
    expect(JSON.parse(sourceDeny.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(bundleDeny).toEqual(sourceDeny);

    // A deferred deny names the request, its link and when it expires: the same words once each names its own.
    const [sourcePending, bundlePending] = await done(
      both(['--timeout', '1', '--expires', '600'], (path) => ({
        stdin: input(`toolu_late_${path}`, 'PreToolUse', ownCall('late', path)),
        env,
      })),
    );
    const ids = await decideBoth(gw, (path) => `toolu_late_${path}`, { decision: 'approve' });
    expect(sourcePending.stdout).toMatch(/Waiting for approval: /);
    const own = (result: CliResult, id: string) => ({
      ...result,
      stdout: result.stdout.replaceAll(id, '<id>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>'),
    });
    expect(own(bundlePending, ids[1]!)).toEqual(own(sourcePending, ids[0]!));

    const [sourceReceipt, bundleReceipt] = await done(
      both([], (path) => ({ stdin: input(`toolu_allow_${path}`, 'PostToolUse', ownCall('allow', path)), env })),
    );
    expect(sourceReceipt).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(bundleReceipt).toEqual(sourceReceipt);
  });

  it('fails with the same exit codes and words: usage, input, flags (through the lazily loaded validators), token, help', async () => {
    const gw = await gateway();
    const env = clientEnv(gw);
    const cases: [string, string[], Options][] = [
      ['bad flag, gateway up', ['--on-timeout', 'maybe'], { stdin: input('toolu_flag'), env }],
      ['invalid input, gateway up', [], { stdin: JSON.stringify({ tool_name: 'Bash', session_id: 's' }), env }],
      [
        'invalid input, gateway down',
        [],
        {
          stdin: JSON.stringify({ tool_name: 'Bash', tool_input: 'ls' }),
          env: { TOLLGATE_URL: 'http://127.0.0.1:9', TOLLGATE_TOKEN: 't' },
        },
      ],
      ['wrong token', [], { stdin: input('toolu_401'), env: { ...env, TOLLGATE_TOKEN: 'wrong' } }],
      ['no token', [], { stdin: input('toolu_x'), env: { ...env, TOLLGATE_TOKEN: '' } }],
      ['not JSON', [], { stdin: 'not json', env }],
      ['empty stdin', [], { stdin: '', env }],
      ['a positional', ['extra'], { stdin: input('toolu_x'), env }],
      ['a bad --timeout', ['--timeout', '0'], { stdin: input('toolu_x'), env }],
      ['--help', ['--help'], { env }],
    ];
    for (const [name, args, options] of cases) {
      const [source, bundle] = await done(both(args, () => options));
      expect({ name, ...bundle }).toEqual({ name, ...source });
      expect({ name, code: source.code }).toEqual({ name, code: name === '--help' ? 0 : 2 });
    }
  });

  it('reads and writes non-blocking pipes too: the process streams take over where fd 0 / fd 1 answer EAGAIN', async () => {
    const gw = await gateway();
    // Python holds both ends non-blocking, as a parent that does not make a child's stdio blocking would, writes the
    // input in two parts after the hook has started reading, and reads an answer larger than a pipe holds (200 kB of
    // edited input) as it comes.
    const script = [
      'import os, subprocess, sys, time',
      'r, w = os.pipe(); o_r, o_w = os.pipe()',
      'os.set_blocking(r, False); os.set_blocking(o_w, False)',
      'p = subprocess.Popen([sys.argv[1], sys.argv[2], "claude-hook"], stdin=r, stdout=o_w)',
      'os.close(r); os.close(o_w)',
      'data = sys.argv[3].encode(); time.sleep(0.3); os.write(w, data[:40]); time.sleep(0.3); os.write(w, data[40:]); os.close(w)',
      'out = b""',
      'while True:',
      '    try: chunk = os.read(o_r, 65536)',
      '    except BlockingIOError: time.sleep(0.02); continue',
      '    if not chunk: break',
      '    out += chunk',
      'sys.stdout.write(str(p.wait()) + " " + out.decode())',
    ].join('\n');
    const hook = spawnProcess(PYTHON3, ['-c', script, process.execPath, bundled.bin, input('toolu_nonblocking')], {
      env: clientEnv(gw),
    });
    const request = await pendingRequest(gw, (r) => r.tool_call_id === 'toolu_nonblocking');
    const edited = { command: 'x'.repeat(200_000) };
    await decide(gw, request.id, { decision: 'approve', approved_args: edited });
    const result = await hook.done;
    expect(result.stderr).toBe('');
    const [code, ...answer] = result.stdout.split(' ');
    expect(code).toBe('0');
    expect(JSON.parse(answer.join(' '))).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'allow', updatedInput: edited },
    });
  });

  it("runs the coding agents' hooks (tollgate hook <agent>) from the same bundle, answering as the unbundled hook does", async () => {
    const gw = await gateway();
    const env = clientEnv(gw);
    const agentInput = (command: string) =>
      JSON.stringify({
        session_id: 's-g',
        cwd: '/work/project',
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command },
      });
    const hookBoth = (agent: string, args: string[], stdin: string): [RunningCli, RunningCli] => [
      spawnCli(['hook', agent, ...args], { stdin, env }),
      spawnProcess(process.execPath, [bundled.bin, 'hook', agent, ...args], { stdin, env }),
    ];
    const denied = hookBoth('gemini', ['--wait', '60'], agentInput('git push --force'));
    // The same call twice is one request (the second re-attaches, or gets the verdict replayed): one decision.
    const request = await pendingRequest(gw, (r) => r.agent_kind === 'gemini');
    await decide(gw, request.id, { decision: 'deny', approver: 'web:bob', reason: 'not on main' });
    const [source, bundle] = await done(denied);
    expect(JSON.parse(source.stdout)).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('Denied by web:bob: not on main'),
    });
    expect(bundle).toEqual(source);
    for (const agent of ['codex', 'cline', 'cursor']) {
      const [badSource, badBundle] = await done(hookBoth(agent, [], 'not json'));
      expect(badSource.code).toBe(2);
      expect(badBundle).toEqual(badSource);
    }
  });

  it("holds the hook's own modules only: no package, and the validators (zod) stay lazy files of dist/src", () => {
    const inputs = Object.keys(bundled.metafile.inputs);
    expect(inputs).toContain('src/cli/claude-hook.ts');
    // Every coding agent's adapter shares the bundle (`tollgate hook <agent>`).
    for (const agent of ['codex', 'gemini', 'qwen', 'opencode', 'cline', 'copilot', 'cursor'])
      expect(inputs).toContain(`src/agents/${agent}.ts`);
    expect(inputs.filter((file) => !file.startsWith('src/'))).toEqual([]);
    for (const unused of [
      'better-sqlite3',
      'express',
      'pg',
      'bullmq',
      'ioredis',
      'zod',
      '@slack',
      'grammy',
      '@larksuiteoapi',
      '@discordjs',
      'nodemailer',
      'pino',
      'src/http/',
      'src/cli/claude-hook-check.ts',
      'src/cli/request-flags.ts',
      'src/integrations/claude-code.ts',
    ]) {
      expect(inputs.filter((file) => file.includes(unused))).toEqual([]);
    }
    // Of the request domain only the agent kinds' table (no imports of its own) is the hook's.
    expect(inputs.filter((file) => file.startsWith('src/requests/'))).toEqual(['src/requests/agent-kinds.ts']);
    const [output] = Object.values(bundled.metafile.outputs);
    expect([...new Set(output!.imports.map((i) => `${i.kind} ${i.path}`))].sort()).toEqual([
      'dynamic-import ../src/cli/claude-hook-check.js',
      'require-call node:fs',
      'require-call node:path',
    ]);
  });
});
