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
import { join, resolve } from 'node:path';
import { beforeAll } from 'vitest';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
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

const cli: RealCli<FakeChatModel> = {
  agent: 'copilot',
  title: `Copilot CLI ${PINNED.copilot.version}`,
  toolName: 'bash',
  runsEditedArgs: true,
  startModel: (command) => startFakeChatModel(command, 'bash'),
  configure: (_model, wait) => h.init('copilot', wait, ['--scope', 'user']),
  run: runCopilot,
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'edit call',
    pathKey: 'path',
    // The model views the file first, as models do; its hook gates every call, so the view is approved first.
    startModel: ({ toolName, args }, file) =>
      startFakeChatModel('', [
        { name: 'view', args: { path: file } },
        { name: toolName, args },
      ]),
    gatedFirst: (file) => ({ tool_name: 'view', tool_args: { path: file } }),
  },
  SLOW,
);
