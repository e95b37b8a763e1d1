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
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { startFakeResponsesModel, type FakeResponsesModel } from '../fakes/model-api/openai-responses.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
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

const cli: RealCli<FakeResponsesModel> = {
  agent: 'codex',
  title: `Codex CLI ${PINNED.codex.version}`,
  toolName: 'Bash',
  startModel: (command) => startFakeResponsesModel(command),
  configure: (model, wait) => configure(model, wait),
  run: runCodex,
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'apply_patch (through the shell tool)',
    // Offered no apply_patch tool (a model Codex has no metadata for), the model sends the patch through its shell
    // tool, as `apply_patch <<'EOF'`, which Codex intercepts and applies itself; its hook files it as `Bash`.
    startModel: ({ args }) =>
      startFakeResponsesModel('', {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: args.command }),
      }),
  },
  SLOW,
);
