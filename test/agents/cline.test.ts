/**
 * The real Cline CLI (`cline`, pinned, installed into a cache on first use) behind `tollgate hook cline`: headless
 * (`cline --yolo --json …`), against a fake OpenAI-compatible Chat Completions API on 127.0.0.1 (the
 * `openai-compatible` provider, set with `cline auth`) that asks for one shell call (`run_commands`), gated by the
 * `PreToolUse` hook file `tollgate init cline` writes. Approve → the command runs; deny → it does not: Cline's
 * `cancel` ends the task with the reason for the user (the model gets no tool result to read); deferred → the first
 * attempt is cancelled, a human approves, the retry runs.
 *
 * 16 s alone, over 30 s under the full suite's load: a real CLI started four times (plus `cline auth` before each),
 * with the hook a child process each time; it runs in vitest.config.ts's `main` project (it computes: see WAITING).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { startFakeChatModel, type FakeChatModel } from '../fakes/model-api/openai-chat.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~430 MB, ~25–40 s), then a real CLI and the hook (from its bundle), on two shared cores.
const SLOW = 300_000;

const h = agentHarness('cline');
let cline: string;
beforeAll(async () => {
  cline = await pinnedCli('cline');
}, SLOW);

// Cline ends a task only through submit_and_exit, which the hook lets pass ungated (src/agents/cline.ts).
const FINISH = {
  name: 'submit_and_exit',
  args: { summary: 'Ran the scripted command as the task asked.', verified: true },
};

async function configure(model: FakeChatModel, wait: number): Promise<void> {
  // The user's opt-outs: else every run and `cline auth` send telemetry to otel.cline.bot (tests talk to 127.0.0.1).
  mkdirSync(join(h.home(), '.cline/data/settings'), { recursive: true });
  writeFileSync(
    join(h.home(), '.cline/data/settings/global-settings.json'),
    JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }),
  );
  const auth = await h.run(
    cline,
    ['auth', '-p', 'openai-compatible', '-k', 'dummy', '-m', 'fake-model', '-b', model.url],
    { HOME: h.home() },
  );
  expect(auth.code).toBe(0);
  await h.init('cline', wait);
}

const runCline = () =>
  h.run(cline, ['--yolo', '--json', '-P', 'openai-compatible', '-m', 'fake-model', 'Run the scripted command.'], {
    HOME: h.home(),
    ...h.gatewayEnv(),
  });

const cli: RealCli<FakeChatModel> = {
  agent: 'cline',
  title: `Cline CLI ${PINNED.cline.version}`,
  toolName: 'run_commands',
  startModel: (command) => startFakeChatModel(command, 'run_commands', FINISH),
  configure,
  run: runCline,
  // A cancel ends the task: the model gets no tool result; the run reports it aborted.
  denied(model, result) {
    expect(model.toolResults).toEqual([]);
    expect(result.stdout).toContain('"finishReason":"aborted"');
  },
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'editor call',
    pathKey: 'path',
    startModel: ({ toolName, args }) => startFakeChatModel('', { name: toolName, args }, FINISH),
  },
  SLOW,
);
