/**
 * The real Gemini CLI (`@google/gemini-cli`, pinned, installed into a cache on first use) behind `tollgate hook
 * gemini`: headless (`gemini -p … --yolo`), against a fake Gemini API on 127.0.0.1 that asks for one shell call, with
 * its BeforeTool hook in the user settings as `tollgate init gemini --scope user` writes it. Approve → the command
 * runs; deny → it does not, and the model receives the approver's reason; deferred → the first attempt is refused
 * with the link, a human approves, the retry runs.
 *
 * Over 30 s: a real CLI started four times, with the hook a child process each time; it runs in vitest.config.ts's
 * `main` project (it computes: see WAITING there).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURED_EDIT_SHAPES } from '../contracts/agent-shapes.js';
import { startFakeGemini, type FakeGemini } from '../fakes/model-api/gemini.js';
import { agentHarness, realCliSuite } from './harness.js';
import { NODE_COMPILE_CACHE, PINNED, pinnedCli } from './install.js';

// An install on first use (~100 MB, ~8 s), then a real CLI (3–6 s a run) and the hook (from its bundle), on two shared cores.
const SLOW = 240_000;

const h = agentHarness('gemini');
let gemini: string;
beforeAll(async () => {
  gemini = await pinnedCli('gemini');
}, SLOW);

/** The user's own settings first: init merges its hook into them, as it would into a real user's. */
async function configure(wait: number): Promise<void> {
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  };
  mkdirSync(join(h.home(), '.gemini'), { recursive: true });
  writeFileSync(join(h.home(), '.gemini/settings.json'), JSON.stringify(settings, null, 2));
  await h.init('gemini', wait, ['--scope', 'user']);
}

const runGemini = (model: FakeGemini) =>
  h.run(gemini, ['-p', 'Run the scripted command.', '--yolo', '-m', 'gemini-2.5-flash'], {
    HOME: h.home(),
    GEMINI_API_KEY: 'dummy',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_HOME: h.home(),
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NODE_COMPILE_CACHE,
    ...h.gatewayEnv(),
  });

realCliSuite(
  h,
  {
    agent: 'gemini',
    title: `Gemini CLI ${PINNED.gemini.version}`,
    toolName: 'run_shell_command',
    runsEditedArgs: true,
    startModel: startFakeGemini,
    configure: (_model, wait) => configure(wait),
    run: runGemini,
  },
  SLOW,
);

// The edit shape: the real CLI's `replace` call as its hook files it, with the diff the gateway summarizes from it
// (test/contracts/agent-shapes.ts keeps it as CAPTURED_EDIT_SHAPES).
describe(`Gemini CLI ${PINNED.gemini.version} editing a file behind tollgate hook gemini`, { timeout: SLOW }, () => {
  let model: FakeGemini | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('files its replace call with the diff as the summary, and edits the file once approved', async () => {
    const file = join(h.project(), 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const { toolName, args } = CAPTURED_EDIT_SHAPES.find((c) => c.agent === `Gemini CLI ${PINNED.gemini.version}`)!;
    model = await startFakeGemini('', { name: toolName, args: { ...args, file_path: file } });
    await configure(30);
    const run = runGemini(model);
    const request = await h.pending('gemini');
    // The call as the model asked it, passed on unchanged: the shape the summarizer contract holds.
    expect(request.tool_name).toBe(toolName);
    expect(request.tool_args).toEqual({ ...args, file_path: file });
    expect(request.summary).toMatchObject({
      kind: 'edit',
      risk: 'low',
      files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1, outside_cwd: false }],
    });
    expect(request.summary!.files![0]!.diff).toContain('-beta\n+delta');
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('alpha\ndelta\ngamma\n');
  });
});
