/**
 * The real Codex CLI (`@openai/codex`, pinned, installed into a cache on first use: a native binary) behind
 * `tollgate hook codex`: headless (`codex exec`), against a fake Responses API on 127.0.0.1 that asks for one shell
 * call, with its PreToolUse hook in `$CODEX_HOME/hooks.json` as `tollgate init codex --scope user` writes it. Codex
 * runs user hooks only once trusted (a `trusted_hash` Codex writes when a user reviews them); the test passes
 * `--dangerously-bypass-hook-trust` instead. Approve → the command runs; deny → it does not, and the model receives
 * the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry runs.
 *
 * Over 30 s: a real CLI started five times, with the hook a child process each time; it runs in vitest.config.ts's
 * `main` project (it computes: see WAITING there).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURED_EDIT_SHAPES } from '../contracts/agent-shapes.js';
import { startFakeResponsesModel, type FakeResponsesModel } from '../fakes/model-api/openai-responses.js';
import { agentHarness, realCliSuite } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~420 MB, ~8 s), then a real CLI and the hook (from its bundle), on two shared cores.
const SLOW = 240_000;

const h = agentHarness('codex');
let codex: string;
beforeAll(async () => {
  codex = await pinnedCli('codex');
}, SLOW);

/** `slug`: the model Codex is told it talks to (its tools follow the model's metadata). */
async function configure(model: FakeResponsesModel, wait: number, slug = 'fake-model'): Promise<void> {
  const config = [
    `model = "${slug}"`,
    'model_provider = "fake"',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${model.url}"`,
    'wire_api = "responses"',
  ];
  config.push(
    'env_key = "FAKE_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '[analytics]',
    'enabled = false',
    '[features]',
    'plugins = false',
  );
  writeFileSync(join(h.home(), 'config.toml'), `${config.join('\n')}\n`);
  await h.init('codex', wait, ['--scope', 'user'], { CODEX_HOME: h.home() });
}

// stdin closed: `codex exec` waits for more input otherwise.
const runCodex = () =>
  h.run(
    codex,
    [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-hook-trust',
      '-s',
      'workspace-write',
      'Run the scripted command.',
    ],
    {
      HOME: h.home(),
      CODEX_HOME: h.home(),
      FAKE_API_KEY: 'dummy',
      ...h.gatewayEnv(),
    },
  );

realCliSuite(
  h,
  {
    agent: 'codex',
    title: `Codex CLI ${PINNED.codex.version}`,
    toolName: 'Bash',
    startModel: (command) => startFakeResponsesModel(command),
    configure: (model, wait) => configure(model, wait),
    run: runCodex,
  },
  SLOW,
);

// The edit shape: the real CLI's `apply_patch` call as its hook files it, with the diff the gateway summarizes from it
// (test/contracts/agent-shapes.ts keeps it as CAPTURED_EDIT_SHAPES).
describe(`Codex CLI ${PINNED.codex.version} editing a file behind tollgate hook codex`, { timeout: SLOW }, () => {
  let model: FakeResponsesModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('files its apply_patch (through the shell tool) with the diff as the summary, and edits the file once approved', async () => {
    const file = join(h.project(), 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const { toolName, args } = CAPTURED_EDIT_SHAPES.find((c) => c.agent === `Codex CLI ${PINNED.codex.version}`)!;
    // Offered no apply_patch tool (a model Codex has no metadata for), the model sends the patch through its shell tool,
    // as `apply_patch <<'EOF'`, which Codex intercepts and applies itself.
    model = await startFakeResponsesModel('', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: args.command }),
    });
    await configure(model, 30);
    const run = runCodex();
    const request = await h.pending('codex');
    // The call as the model asked it, filed as `Bash`: the shape the summarizer contract holds.
    expect(request.tool_name).toBe(toolName);
    expect(request.tool_args).toEqual(args);
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
