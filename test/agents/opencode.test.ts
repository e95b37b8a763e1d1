/**
 * The real OpenCode (`opencode-ai`, pinned, installed into a cache on first use: a native binary) behind `tollgate hook
 * opencode`: headless (`opencode run`), against a fake OpenAI-compatible Chat Completions API on 127.0.0.1 (an
 * `@ai-sdk/openai-compatible` provider, which OpenCode fetches from npm on first use) that asks for one `bash` call,
 * gated by the plugin `tollgate init opencode` writes. Approve → the command runs; deny → it does not, and the model
 * receives the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry
 * runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run as init } from '../../src/cli/init.js';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { agentHarness } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

const VERSION = PINNED.opencode.version;
// An install on first use (~350 MB, ~10 s; the provider package on the first run), then a real CLI and the hook
// through tsx, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('opencode');
let opencode: string;
let model: FakeChatModel | undefined;

beforeAll(async () => {
  opencode = await pinnedCli('opencode');
}, SLOW);
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** The fake as the project's model, and the plugin as `tollgate init opencode --wait <wait>` writes it. */
async function configure(wait: number): Promise<void> {
  const provider = { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: model!.url, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake', tool_call: true } } };
  writeFileSync(join(h.project(), 'opencode.json'), JSON.stringify({ provider: { fake: provider }, model: 'fake/fake-model', share: 'disabled', autoupdate: false }, null, 2));
  const io = { stdout: { write: () => true }, env: { HOME: h.home() }, cwd: h.project(), bin: resolve(import.meta.dirname, '../../bin/tollgate.js') };
  expect(await init(['opencode', '--wait', String(wait)], io)).toBe(0);
}

/** One headless run of the real CLI, its state in the test's home. */
const runOpencode = () => {
  const home = h.home();
  return h.run(opencode, ['run', 'Run the scripted command.'], {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    // The provider package OpenCode installs on first use is kept between tests (one npm fetch per machine).
    XDG_CACHE_HOME: join(resolve(opencode, '../../..'), 'xdg-cache'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    ...h.gatewayEnv(),
  });
};

describe(`OpenCode ${VERSION} behind tollgate hook opencode`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    model = await startFakeChatModel('echo approved > ran.txt', 'bash');
    await configure(30);
    const run = runOpencode();
    const request = await h.pending('opencode');
    expect(request).toMatchObject({ tool_name: 'bash', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: h.project() } });
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command, and the model reads the approver\'s reason', async () => {
    model = await startFakeChatModel('echo denied > ran.txt', 'bash');
    await configure(30);
    const run = runOpencode();
    await h.decide((await h.pending('opencode')).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    await run;
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    expect(model.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
  });

  it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
    model = await startFakeChatModel('echo later > ran.txt', 'bash');
    await configure(1);
    await runOpencode();
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    const request = await h.pending('opencode');
    expect(model.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
    await h.decide(request.id, { decision: 'approve' });
    await runOpencode();
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
