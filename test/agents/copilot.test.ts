/**
 * The real GitHub Copilot CLI (`@github/copilot`, pinned, installed into a cache on first use: a native binary)
 * behind `tollgate hook copilot`: headless (`copilot -p … --allow-all-tools`), in bring-your-own-key mode against a
 * fake Chat Completions API on 127.0.0.1 (`COPILOT_PROVIDER_BASE_URL`: no GitHub sign-in) that asks for one `bash`
 * call, with the `preToolUse` hook `tollgate init copilot --scope user` writes to `~/.copilot/settings.json`.
 * (Headless, Copilot CLI 1.0.102 fires the user's hooks but not the repository's `.github/hooks/*.json`.)
 * Approve → the command runs; deny → it does not, and the model receives the approver's reason ("Denied by
 * preToolUse hook: …"); edited arguments run instead (`modifiedArgs`); deferred → the first attempt is refused with
 * the link, a human approves, the retry runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURED_EDIT_SHAPES } from '../contracts/agent-shapes.js';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { eventually } from '../helpers/eventually.js';
import { agentHarness, realCliSuite } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~190 MB, ~25 s), the binary's first unpacking (~6 s), then 3–5 s a run on two shared cores.
const SLOW = 240_000;

const h = agentHarness('copilot');
let copilot: string;
beforeAll(async () => {
  copilot = await pinnedCli('copilot');
}, SLOW);

const runCopilot = (model: FakeChatModel) =>
  h.run(copilot, ['-p', 'Run the scripted command.', '--allow-all-tools', '--disable-client-telemetry'], {
    HOME: h.home(),
    XDG_CONFIG_HOME: join(h.home(), '.config'),
    // Where the binary unpacks itself at its first start (~235 MB, ~1.5 s of CPU): once per machine, not per HOME.
    COPILOT_CACHE_HOME: join(resolve(copilot, '../../..'), 'cache'),
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: model.url,
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'gpt-4.1',
    ...h.gatewayEnv(),
  });

realCliSuite(
  h,
  {
    agent: 'copilot',
    title: `Copilot CLI ${PINNED.copilot.version}`,
    toolName: 'bash',
    runsEditedArgs: true,
    startModel: (command) => startFakeChatModel(command, 'bash'),
    configure: (_model, wait) => h.init('copilot', wait, ['--scope', 'user']),
    run: runCopilot,
  },
  SLOW,
);

// The edit shape: the real CLI's `edit` call as its hook files it, with the diff the gateway summarizes from it
// (test/contracts/agent-shapes.ts keeps it as CAPTURED_EDIT_SHAPES).
describe(`Copilot CLI ${PINNED.copilot.version} editing a file behind tollgate hook copilot`, { timeout: SLOW }, () => {
  let model: FakeChatModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('files its edit call with the diff as the summary, and edits the file once approved', async () => {
    const file = join(h.project(), 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const { toolName, args } = CAPTURED_EDIT_SHAPES.find((c) => c.agent === `Copilot CLI ${PINNED.copilot.version}`)!;
    // The model views the file first, as models do; its hook gates every call, so the view is approved first.
    model = await startFakeChatModel('', [
      { name: 'view', args: { path: file } },
      { name: toolName, args: { ...args, path: file } },
    ]);
    await h.init('copilot', 30, ['--scope', 'user']);
    const run = runCopilot(model);
    const view = await h.pending('copilot');
    expect(view).toMatchObject({ tool_name: 'view', tool_args: { path: file } });
    await h.decide(view.id, { decision: 'approve' });
    const request = await eventually(
      async () => {
        const next = await h.pending('copilot');
        if (next.id === view.id) throw new Error('the view is still pending');
        return next;
      },
      60_000,
      100,
    );
    // The call as the model asked it, passed on unchanged: the shape the summarizer contract holds.
    expect(request.tool_name).toBe(toolName);
    expect(request.tool_args).toEqual({ ...args, path: file });
    expect(request.summary).toMatchObject({
      kind: 'edit',
      risk: 'low',
      files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1, outside_cwd: false }],
    });
    expect(request.summary!.files![0]!.diff).toContain('-beta\n+delta');
    await h.decide(request.id, { decision: 'approve' });
    const result = await run;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(readFileSync(file, 'utf8'), model.toolResults.join('\n')).toBe('alpha\ndelta\ngamma\n');
  });
});
