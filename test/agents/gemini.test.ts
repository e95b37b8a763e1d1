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
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { startFakeGemini, type FakeGemini } from '../fakes/model-api/gemini.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
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

const cli: RealCli<FakeGemini> = {
  agent: 'gemini',
  title: `Gemini CLI ${PINNED.gemini.version}`,
  toolName: 'run_shell_command',
  runsEditedArgs: true,
  startModel: startFakeGemini,
  configure: (_model, wait) => configure(wait),
  run: runGemini,
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'replace call',
    pathKey: 'file_path',
    startModel: ({ toolName, args }) => startFakeGemini('', { name: toolName, args }),
  },
  SLOW,
);
