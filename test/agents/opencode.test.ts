/**
 * The real OpenCode (`opencode-ai`, pinned, installed into a cache on first use: a native binary) behind `tollgate hook
 * opencode`: headless (`opencode run`), against a fake OpenAI-compatible Chat Completions API on 127.0.0.1 (an
 * `@ai-sdk/openai-compatible` provider, which OpenCode fetches from npm on first use) that asks for one `bash` call,
 * gated by the plugin `tollgate init opencode` writes. Approve → the command runs; deny → it does not, and the model
 * receives the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry
 * runs.
 *
 * Over 30 s: a real CLI started four times, with the hook a child process each time; it runs in vitest.config.ts's
 * `waiting` project, beside the other files that wait.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { run as init } from '../../src/cli/init.js';
import { startFakeChatModel } from '../fakes/model-api/openai-chat.js';
import { agentHarness, realCliSuite } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~350 MB, ~10 s), then, at every run in a fresh HOME, the provider package from npm and
// a real CLI with the hook, on two cores shared with the full suite: up to 135 s a test was seen in CI.
const SLOW = 480_000;

const h = agentHarness('opencode');
let opencode: string;
beforeAll(async () => {
  opencode = await pinnedCli('opencode');
}, SLOW);

realCliSuite(
  h,
  {
    agent: 'opencode',
    title: `OpenCode ${PINNED.opencode.version}`,
    toolName: 'bash',
    startModel: (command) => startFakeChatModel(command, 'bash'),
    async configure(model, wait) {
      const provider = { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: model.url, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake', tool_call: true } } };
      writeFileSync(join(h.project(), 'opencode.json'), JSON.stringify({ provider: { fake: provider }, model: 'fake/fake-model', share: 'disabled', autoupdate: false }, null, 2));
      const io = { stdout: { write: () => true }, env: { HOME: h.home() }, cwd: h.project(), bin: resolve(import.meta.dirname, '../../bin/tollgate.js') };
      expect(await init(['opencode', '--wait', String(wait)], io)).toBe(0);
    },
    run: () =>
      h.run(opencode, ['run', 'Run the scripted command.'], {
        HOME: h.home(),
        XDG_CONFIG_HOME: join(h.home(), '.config'),
        XDG_DATA_HOME: join(h.home(), '.local/share'),
        XDG_STATE_HOME: join(h.home(), '.local/state'),
        // The provider package OpenCode installs on first use is kept between tests (one npm fetch per machine).
        XDG_CACHE_HOME: join(resolve(opencode, '../../..'), 'xdg-cache'),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        ...h.gatewayEnv(),
      }),
  },
  SLOW,
);
