/**
 * The real OpenCode (`opencode-ai`, pinned, installed into a cache on first use: a native binary) behind `tollgate hook
 * opencode`: headless (`opencode run`), against a fake OpenAI-compatible Chat Completions API on 127.0.0.1 (an
 * `@ai-sdk/openai-compatible` provider, built into OpenCode) that asks for one `bash` call, gated by the plugin
 * `tollgate init opencode` writes. Approve → the command runs; deny → it does not, and the model
 * receives the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry
 * runs.
 *
 * Over 30 s: a real CLI started four times, with the hook a child process each time; it runs in vitest.config.ts's
 * `main` project (it computes: see WAITING there).
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll } from 'vitest';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
import { installedDependency, OPENCODE_PLUGIN_SDK, PINNED, pinnedCli } from './install.js';

// An install on first use (~350 MB, ~10 s), then a real CLI (3–12 s a run) and the hook, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('opencode');
let opencode: string;
let sdk: string;
beforeAll(async () => {
  opencode = await pinnedCli('opencode');
  sdk = await installedDependency(OPENCODE_PLUGIN_SDK.pkg, OPENCODE_PLUGIN_SDK.version);
}, SLOW);

/**
 * Before it loads plugins, OpenCode installs its plugin SDK with npm into every config directory it reads (the
 * user's, `$XDG_CONFIG_HOME/opencode`, which it creates, and the project's `.opencode/`) unless `node_modules` there
 * holds what `package.json` asks: from the registry into the fresh HOME's npm cache, 17–66 s a test on two loaded
 * cores, most of this file's time. A user and a project OpenCode ran in before have them; here they come from one
 * install per machine (linked), so OpenCode finds them and installs nothing.
 */
function seedPluginSdk(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(sdk, file), join(dir, file));
  symlinkSync(join(sdk, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

/** The fake as OpenCode's model, tollgate's plugin, the plugin SDK seeded. */
async function configure(model: FakeChatModel, wait: number): Promise<void> {
  const provider = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Fake',
    options: { baseURL: model.url, apiKey: 'dummy' },
    models: { 'fake-model': { name: 'Fake', tool_call: true } },
  };
  writeFileSync(
    join(h.project(), 'opencode.json'),
    JSON.stringify(
      { provider: { fake: provider }, model: 'fake/fake-model', share: 'disabled', autoupdate: false },
      null,
      2,
    ),
  );
  await h.init('opencode', wait);
  seedPluginSdk(join(h.home(), '.config/opencode'));
  seedPluginSdk(join(h.project(), '.opencode'));
}

const runOpencode = () =>
  h.run(opencode, ['run', 'Run the scripted command.'], {
    HOME: h.home(),
    XDG_CONFIG_HOME: join(h.home(), '.config'),
    XDG_DATA_HOME: join(h.home(), '.local/share'),
    XDG_STATE_HOME: join(h.home(), '.local/state'),
    // Its cache directory is kept between tests: whatever it caches there is fetched once per machine.
    XDG_CACHE_HOME: join(resolve(opencode, '../../..'), 'xdg-cache'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    ...h.gatewayEnv(),
  });

const cli: RealCli<FakeChatModel> = {
  agent: 'opencode',
  title: `OpenCode ${PINNED.opencode.version}`,
  toolName: 'bash',
  startModel: (command) => startFakeChatModel(command, 'bash'),
  configure,
  run: runOpencode,
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'edit call',
    pathKey: 'filePath',
    // OpenCode edits only a file read in the session, and its plugin gates every call: the read is approved first.
    startModel: ({ toolName, args }, file) =>
      startFakeChatModel('', [
        { name: 'read', args: { filePath: file } },
        { name: toolName, args },
      ]),
    gatedFirst: () => ({ tool_name: 'read' }),
  },
  SLOW,
);
