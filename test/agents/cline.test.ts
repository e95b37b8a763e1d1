/**
 * The real Cline CLI (`cline`, pinned, installed into a cache on first use) behind `tollgate hook cline`: headless
 * (`cline --yolo --json …`), against a fake OpenAI-compatible Chat Completions API on 127.0.0.1 (the
 * `openai-compatible` provider, set with `cline auth`) that asks for one shell call (`run_commands`), gated by the
 * `PreToolUse` hook file `tollgate init cline` writes. Approve → the command runs; deny → it does not: Cline's
 * `cancel` ends the task with the reason for the user (the model gets no tool result to read); deferred → the first
 * attempt is cancelled, a human approves, the retry runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run as init } from '../../src/cli/init.js';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { agentHarness } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

const VERSION = PINNED.cline.version;
// An install on first use (~430 MB, ~40 s), then a real CLI and the hook through tsx, on two shared cores.
const SLOW = 300_000;

const h = agentHarness('cline');
let cline: string;
let model: FakeChatModel | undefined;

beforeAll(async () => {
  cline = await pinnedCli('cline');
}, SLOW);
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** The fake as the provider (`cline auth`), and the hook file as `tollgate init cline --wait <wait>` writes it. */
async function configure(wait: number): Promise<void> {
  const auth = await h.run(cline, ['auth', '-p', 'openai-compatible', '-k', 'dummy', '-m', 'fake-model', '-b', model!.url], { HOME: h.home() });
  expect(auth.code).toBe(0);
  const io = { stdout: { write: () => true }, env: { HOME: h.home() }, cwd: h.project(), bin: resolve(import.meta.dirname, '../../bin/tollgate.js') };
  expect(await init(['cline', '--wait', String(wait)], io)).toBe(0);
}

/** One headless run of the real CLI. */
const runCline = () => h.run(cline, ['--yolo', '--json', '-P', 'openai-compatible', '-m', 'fake-model', 'Run the scripted command.'], { HOME: h.home(), ...h.gatewayEnv() });

describe(`Cline CLI ${VERSION} behind tollgate hook cline`, { timeout: SLOW }, () => {
  it('runs the command once a human approves it', async () => {
    model = await startFakeChatModel('echo approved > ran.txt', 'run_commands');
    await configure(30);
    const run = runCline();
    const request = await h.pending('cline');
    expect(request).toMatchObject({ tool_name: 'run_commands', tool_args: { command: 'echo approved > ran.txt' }, context: { cwd: h.project() } });
    await h.decide(request.id, { decision: 'approve' });
    expect((await run).code).toBe(0);
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('approved');
  });

  it('does not run a denied command: the task is cancelled', async () => {
    model = await startFakeChatModel('echo denied > ran.txt', 'run_commands');
    await configure(30);
    const run = runCline();
    await h.decide((await h.pending('cline')).id, { decision: 'deny', approver: 'web:bob', reason: 'not on the release branch' });
    const result = await run;
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    expect(result.stdout).toContain('"finishReason":"aborted"');
  });

  it('defers: the first attempt is cancelled, a human approves, the retry runs', async () => {
    model = await startFakeChatModel('echo later > ran.txt', 'run_commands');
    await configure(1);
    await runCline();
    expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
    const request = await h.pending('cline');
    await h.decide(request.id, { decision: 'approve' });
    await runCline();
    expect(readFileSync(join(h.project(), 'ran.txt'), 'utf8').trim()).toBe('later');
  });
});
