/**
 * The real Codex CLI (`@openai/codex`, pinned, installed into a cache on first use: a native binary) behind
 * `tollgate hook codex`: headless (`codex exec`), against a fake Responses API on 127.0.0.1 that asks for one shell
 * call, with its PreToolUse hook in `$CODEX_HOME/hooks.json` as docs/coding-agents.md says. Codex runs user hooks
 * only once trusted (a `trusted_hash` in config.toml, which Codex writes when a user reviews them); the test passes
 * `--dangerously-bypass-hook-trust` instead. Approve → the command runs; deny → it does not, and the model receives
 * the approver's reason; deferred → the first attempt is refused with the link, a human approves, the retry runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeResponsesModel, type FakeResponsesModel } from '../fakes/model-api/openai-responses.js';
import { agentHarness } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

const VERSION = PINNED.codex.version;
// An install on first use (~420 MB, ~8 s), then a real CLI and the hook through tsx, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('codex');
let codex: string;
let model: FakeResponsesModel | undefined;

beforeAll(async () => {
  codex = await pinnedCli('codex');
}, SLOW);
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** `$CODEX_HOME`: the fake as the model provider, and the hook (its --wait `wait`) as `tollgate init codex` writes it. */
function configure(wait: number): void {
  const config = [
    'model = "fake-model"',
    'model_provider = "fake"',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${model!.url}"`,
    'wire_api = "responses"',
    'env_key = "FAKE_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '[analytics]',
    'enabled = false',
    '[features]',
    'plugins = false',
  ];
  writeFileSync(join(h.home(), 'config.toml'), `${config.join('\n')}\n`);
  const hooks = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: h.hookCommand('codex', wait), timeout: wait + 10 }] }] } };
  writeFileSync(join(h.home(), 'hooks.json'), JSON.stringify(hooks, null, 2));
}

/** One headless run of the real CLI (stdin closed: `codex exec` waits for more input otherwise). */
const runCodex = () =>
  h.run(codex, ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '-s', 'workspace-write', 'Run the scripted command.'], {
    HOME: h.home(),
    CODEX_HOME: h.home(),
    FAKE_API_KEY: 'dummy',
    ...h.gatewayEnv(),
  });

describe(`Codex CLI ${VERSION} behind tollgate hook codex`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    model = await startFakeResponsesModel('echo approved > ran.txt');
    configure(30);
    const run = runCodex();
    const request = await h.pending('codex');
    expect(request).toMatchObject({ tool_name: 'Bash', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: h.project(), model: 'fake-model' } });
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(model.unknown).toEqual([]);
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command, and the model reads the approver\'s reason', async () => {
    model = await startFakeResponsesModel('echo denied > ran.txt');
    configure(30);
    const run = runCodex();
    await h.decide((await h.pending('codex')).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    await run;
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    expect(model.toolResults.join('\n')).toContain('Denied by web:bob: not on the release branch');
  });

  it('defers: the first attempt is refused with the link, a human approves, the retry runs', async () => {
    model = await startFakeResponsesModel('echo later > ran.txt');
    configure(1);
    await runCodex();
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    const request = await h.pending('codex');
    expect(model.toolResults.join('\n')).toContain(`/ui/requests/${request.id}`);
    await h.decide(request.id, { decision: 'approve' });
    await runCodex();
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
