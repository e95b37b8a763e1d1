/**
 * The real Claude Code (`@anthropic-ai/claude-code`, pinned, installed into a cache on first use: a native binary)
 * behind `tollgate hook claude` (= `tollgate claude-hook`): headless (`claude -p … --settings FILE`), against a fake
 * Messages API on 127.0.0.1 that asks for one `Bash` call, with the PreToolUse hook `tollgate init claude` writes.
 * Approve → the command runs; deny → it does not, and the model receives the approver's reason. Claude Code's hook
 * answers a wait that ends first with "still pending" naming the request; it does not use deferred verdicts yet, so
 * a retry in a new headless session asks anew (docs/coding-agents.md).
 *
 * Over 30 s: a real CLI started for each scenario (a native binary loading its own runtime), with the hook a child process each
 * time; it runs in vitest.config.ts's `waiting` project, beside the other files that wait.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { startFakeMessagesModel, type FakeMessagesModel } from '../fakes/model-api/anthropic-messages.js';
import { agentHarness, realCliSuite } from './harness.js';
import { PINNED, pinnedCli } from './install.js';

// An install on first use (~380 MB, ~5 s), then a real CLI and the hook through tsx, on two shared cores.
const SLOW = 240_000;

const h = agentHarness('claude');
let claude: string;
beforeAll(async () => {
  claude = await pinnedCli('claude');
}, SLOW);

const settings = () => join(h.home(), 'settings.json');
const runClaude = (model: FakeMessagesModel) =>
  // `--allowedTools Bash`: headless, the tool runs without a permission prompt once the hook allows it.
  h.run(claude, ['-p', 'Run the scripted command.', '--settings', settings(), '--output-format', 'json', '--allowedTools', 'Bash'], {
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
    startModel: startFakeMessagesModel,
    configure(_model, wait) {
      const hook = { type: 'command', command: h.hookCommand('claude', wait), timeout: wait + 10 };
      writeFileSync(settings(), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }, null, 2));
    },
    run: runClaude,
    ownDeferred: {
      title: 'answers a wait that ends first with "still pending" naming the request; a retry in a new session asks anew',
      async test(model) {
        await runClaude(model);
        expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
        const request = await h.pending('claude');
        expect(model.toolResults.join('\n')).toContain(`Still waiting for a human to approve this call (tollgate request ${request.id})`);
        await h.decide(request.id, { decision: 'approve' });
        await runClaude(model);
        expect(existsSync(join(h.project(), 'ran.txt'))).toBe(false);
        expect((await h.pending('claude')).id).not.toBe(request.id);
      },
    },
  },
  SLOW,
);
