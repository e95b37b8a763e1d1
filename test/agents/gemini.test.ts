/**
 * The real Gemini CLI (`@google/gemini-cli`, pinned, installed into a cache on first use) behind `tollgate hook
 * gemini`: headless (`gemini -p … --yolo`), against a fake Gemini API on 127.0.0.1 that asks for one shell call,
 * with its BeforeTool hook configured as docs/coding-agents.md says. Approve → the command runs; deny → it does
 * not, and the model receives the approver's reason; deferred → the first attempt is refused with the link, a human
 * approves, the retry runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/model-api/gemini.js';
import { agentHarness } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

const VERSION = PINNED.gemini.version;
// An install on first use (~100 MB, ~8 s), then a real CLI (3–6 s a run) and the hook through tsx, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('gemini');
let gemini: string;
let model: FakeGemini | undefined;

beforeAll(async () => {
  gemini = await pinnedCli('gemini');
}, SLOW);
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** User settings wiring the hook (its --wait `wait`), as `tollgate init gemini --scope user` writes them. */
function configure(wait: number): void {
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ name: 'tollgate', type: 'command', command: h.hookCommand('gemini', wait), timeout: (wait + 10) * 1000 }] }] },
  };
  mkdirSync(join(h.home(), '.gemini'), { recursive: true });
  writeFileSync(join(h.home(), '.gemini/settings.json'), JSON.stringify(settings, null, 2));
}

/** One headless run of the real CLI. */
const runGemini = () =>
  h.run(gemini, ['-p', 'Run the scripted command.', '--yolo', '-m', 'gemini-2.5-flash'], {
    HOME: h.home(),
    GEMINI_API_KEY: 'dummy',
    GOOGLE_GEMINI_BASE_URL: model!.url,
    GEMINI_CLI_HOME: h.home(),
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ...h.gatewayEnv(),
  });

describe(`Gemini CLI ${VERSION} behind tollgate hook gemini`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    configure(30);
    model = await startFakeGemini('echo approved > ran.txt');
    const run = runGemini();
    const request = await h.pending('gemini');
    expect(request).toMatchObject({ tool_name: 'run_shell_command', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: h.project() } });
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(model.unknown).toEqual([]);
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command, and the model reads the approver\'s reason', async () => {
    configure(30);
    model = await startFakeGemini('echo denied > ran.txt');
    const run = runGemini();
    await h.decide((await h.pending('gemini')).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    await run;
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    expect(model.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
  });

  it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
    configure(1);
    model = await startFakeGemini('echo later > ran.txt');
    await runGemini();
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    const request = await h.pending('gemini');
    expect(model.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
    await h.decide(request.id, { decision: 'approve' });
    await runGemini();
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
