/**
 * The real Claude Code (`@anthropic-ai/claude-code`, pinned, installed into a cache on first use: a native binary)
 * behind `tollgate hook claude` (= `tollgate claude-hook`): headless (`claude -p …`), against a fake Messages API on
 * 127.0.0.1 that asks for one `Bash` call, with the PreToolUse hook `tollgate init claude --scope user` writes to
 * `~/.claude/settings.json` (the test's home).
 * Approve → the command runs; deny → it does not, and the model receives the approver's reason; deferred → the first
 * attempt is refused with the link, a human approves, and the retry — a new headless session, a new `tool_use_id` —
 * runs (deferred verdicts, as for every agent).
 *
 * Over 30 s: a real CLI started for each scenario (a native binary loading its own runtime), with the hook a child process each
 * time; it runs in vitest.config.ts's `main` project (it computes: see WAITING there).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURED_EDIT_SHAPES } from '../contracts/agent-shapes.js';
import { startFakeMessagesModel, type FakeMessagesModel } from '../fakes/model-api/anthropic-messages.js';
import { agentHarness, realCliSuite } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~380 MB, ~5 s), then a real CLI and the hook (from its bundle), on two shared cores.
const SLOW = 240_000;

const h = agentHarness('claude');
let claude: string;
beforeAll(async () => {
  claude = await pinnedCli('claude');
}, SLOW);

const runClaude = (model: FakeMessagesModel, tools = 'Bash') =>
  // `--allowedTools Bash`: headless, the tool runs without a permission prompt once the hook allows it.
  h.run(claude, ['-p', 'Run the scripted command.', '--output-format', 'json', '--allowedTools', tools], {
    HOME: h.home(),
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ...h.gatewayEnv(),
  });

realCliSuite<FakeMessagesModel>(
  h,
  {
    agent: 'claude',
    title: `Claude Code ${PINNED.claude.version}`,
    toolName: 'Bash',
    runsEditedArgs: true,
    startModel: startFakeMessagesModel,
    configure: (_model, wait) => h.init('claude', wait, ['--scope', 'user']),
    run: (model) => runClaude(model),
  },
  SLOW,
);

// The edit shape: the real CLI's `Edit` call as its hook files it, with the diff the gateway summarizes from it
// (test/contracts/agent-shapes.ts keeps it as CAPTURED_EDIT_SHAPES).
describe(`Claude Code ${PINNED.claude.version} editing a file behind tollgate hook claude`, { timeout: SLOW }, () => {
  let model: FakeMessagesModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('files its Edit call with the diff as the summary, and edits the file once approved', async () => {
    const file = join(h.project(), 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\n');
    const { toolName, args } = CAPTURED_EDIT_SHAPES.find((c) => c.agent === `Claude Code ${PINNED.claude.version}`)!;
    // Claude Code edits only a file read in the session: the model reads it first (Read is not gated), then asks for
    // the edit without `replace_all`, as models do.
    const { replace_all: _default, ...asked } = args;
    model = await startFakeMessagesModel('', [
      { name: 'Read', input: { file_path: file } },
      { name: toolName, input: { ...asked, file_path: file } },
    ]);
    await h.init('claude', 30, ['--scope', 'user']);
    const run = runClaude(model, 'Read,Edit');
    const request = await h.pending('claude');
    // The call as the hook filed it, `replace_all: false` added by Claude Code: the shape the summarizer contract holds.
    expect(request.tool_name).toBe(toolName);
    expect(request.tool_args).toEqual({ ...args, file_path: file });
    expect(request.summary).toMatchObject({
      kind: 'edit',
      risk: 'low',
      files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1, outside_cwd: false }],
    });
    expect(request.summary!.files![0]!.diff).toContain('-beta\n+delta');
    await h.decide(request.id, { decision: 'approve' });
    const result = await run;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(model.unknown).toEqual([]);
    expect(readFileSync(file, 'utf8'), model.toolResults.join('\n')).toBe('alpha\ndelta\ngamma\n');
  });
});
