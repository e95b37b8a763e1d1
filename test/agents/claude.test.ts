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
import { beforeAll } from 'vitest';
import { startFakeMessagesModel, type FakeMessagesModel } from '../fakes/model-api/anthropic-messages.js';
import { editScenario } from './edit-scenario.js';
import { agentHarness, realCliSuite, type RealCli } from './harness.js';
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

const cli: RealCli<FakeMessagesModel> = {
  agent: 'claude',
  title: `Claude Code ${PINNED.claude.version}`,
  toolName: 'Bash',
  runsEditedArgs: true,
  startModel: startFakeMessagesModel,
  configure: (_model, wait) => h.init('claude', wait, ['--scope', 'user']),
  run: (model) => runClaude(model),
};
realCliSuite(h, cli, SLOW);

editScenario(
  h,
  cli,
  {
    call: 'Edit call',
    pathKey: 'file_path',
    // Claude Code edits only a file read in the session: the model reads it first (Read is not gated), then asks for
    // the edit without `replace_all`, as models do; Claude Code files it with `replace_all: false` added.
    startModel: ({ toolName, args: { replace_all: _default, ...asked } }, file) =>
      startFakeMessagesModel('', [
        { name: 'Read', input: { file_path: file } },
        { name: toolName, input: asked },
      ]),
    run: (model) => runClaude(model, 'Read,Edit'),
  },
  SLOW,
);
