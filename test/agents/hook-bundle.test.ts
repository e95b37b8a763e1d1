/**
 * The hook command as a user's clone runs it (`node <clone>/bin/tollgate.js hook <agent>`, what `tollgate init`
 * writes): a source checkout runs its hooks from the bundle `npm install` built (`dist/hook/hook.cjs`), not through
 * tsx (~0.5 s a call), and refuses a stale or missing bundle loudly — the agent's own deny naming the fix — rather
 * than run old code or silently run slow.
 *
 * The checkout is a copy of this one's `bin/` and `src/` with the bundle built into it after them. Without
 * `node_modules` tsx cannot load there, so a hook that answers ran from the bundle; the refusals are answered by the
 * sources (through tsx, so with `node_modules`), as each agent reads its own deny.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildHookBundle } from '../../scripts/build-hook.js';
import { ROOT } from '../helpers/built-package.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A copy of src/, a bundle build, and node processes on two shared cores.
const SLOW = 120_000;
const POLICY = `policies:\n  - name: read-only\n    match: { agent_kind: "*", when: 'has(args.command) && args.command == "ls"' }\n    decision: allow\n`;

let checkout: string;
let server: TestServer;

beforeAll(async () => {
  checkout = mkdtempSync(join(tmpdir(), 'tollgate-clone-'));
  cpSync(join(ROOT, 'bin'), join(checkout, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'src'), join(checkout, 'src'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(checkout, 'package.json'));
  await buildHookBundle(join(checkout, 'dist/hook/hook.cjs'));
}, SLOW);
afterAll(() => rmSync(checkout, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startTestServer({ policy: POLICY });
});
afterEach(async () => {
  rmSync(join(checkout, 'node_modules'), { force: true });
  await server.close();
});

/** Runs the clone's hook command with `input` on stdin; resolves with what it printed. */
function hook(args: string[], input: unknown): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(checkout, 'bin/tollgate.js'), ...args], {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? '', TOLLGATE_URL: server.url, TOLLGATE_TOKEN: server.token },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(JSON.stringify(input));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

const gemini = (command: string) => ({
  session_id: 's',
  cwd: '/srv/app',
  hook_event_name: 'BeforeTool',
  tool_name: 'run_shell_command',
  tool_input: { command },
});
const claude = (command: string) => ({
  session_id: 's',
  cwd: '/srv/app',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: 'toolu_1',
});
const filed = async () => ((await (await server.api('/v1/requests')).json()) as { items: unknown[] }).items.length;
/** Makes `file` of the clone newer than its bundle, as an edit or a `git pull` does. */
const touch = (file: string) => utimesSync(join(checkout, file), new Date(), new Date());

describe("a source checkout's hook command", { timeout: SLOW }, () => {
  it('runs from the bundle: it answers where tsx cannot even load', async () => {
    expect(await hook(['hook', 'gemini'], gemini('ls'))).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^{"decision":"allow"/),
    });
    const answer = await hook(['claude-hook'], claude('ls'));
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
  });

  it("refuses a bundle older than a source it was built from, in the agent's own deny, and files nothing", async () => {
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    touch('src/agents/gemini.ts');
    const gem = await hook(['hook', 'gemini'], gemini('ls'));
    expect(gem.code).toBe(2);
    const reason = (JSON.parse(gem.stdout) as { decision: string; reason: string }).reason;
    expect(JSON.parse(gem.stdout)).toMatchObject({ decision: 'deny' });
    expect(reason).toContain(
      'the hook bundle (dist/hook/hook.cjs) is older than src/agents/gemini.ts in this source checkout: run `npm run build`',
    );
    const cla = await hook(['claude-hook'], claude('ls'));
    expect(cla).toMatchObject({ code: 2, stdout: '' });
    expect(cla.stderr).toMatch(
      /^tollgate claude-hook: the hook bundle \(dist\/hook\/hook\.cjs\) is older than src\/agents\/gemini\.ts/,
    );
    expect(await filed()).toBe(0);

    // Rebuilt (what `npm run build` does), it runs from the bundle again.
    await buildHookBundle(join(checkout, 'dist/hook/hook.cjs'));
    rmSync(join(checkout, 'node_modules'));
    expect(await hook(['hook', 'gemini'], gemini('ls'))).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^{"decision":"allow"/),
    });
  });

  it('refuses a missing bundle the same way', async () => {
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    rmSync(join(checkout, 'dist/hook/hook.sources.json'));
    const answer = await hook(['hook', 'codex'], { ...claude('ls'), tool_use_id: 'c1' });
    expect(answer.code).toBe(2);
    expect(JSON.parse(answer.stdout)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('of this source checkout is missing: run `npm run build`'),
      },
    });
    expect(await filed()).toBe(0);
    await buildHookBundle(join(checkout, 'dist/hook/hook.cjs'));
  });
});
