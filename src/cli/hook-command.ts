/**
 * @module cli/hook-command
 * The `hook` command as `main` lists it, and the entry of the hooks' bundle. Every coding agent starts a fresh `node`
 * per tool call for its hook, so the package build (`scripts/build-hook.ts`) bundles this module, `claude-hook`'s
 * and what they run into one CommonJS file, `dist/hook/hook.cjs`, which `bin/tollgate.js` loads directly for `hook`
 * and `claude-hook`: no resolving and reading of a dozen files, no ES module loader, none of the other commands.
 */
import { runCommand, type Command } from './command.js';

export { runClaudeHook } from './claude-hook-command.js';

/** `tollgate hook <agent>`. */
export const hookCommand: Command = {
  summary:
    'A coding agent\'s pre-tool hook (claude, codex, gemini, qwen, opencode, cline, copilot, cursor): reads its hook JSON on stdin, waits for a verdict, prints the agent\'s own answer; a wait that ends first answers "deferred" (run it again once approved).',
  usage:
    "tollgate hook <claude|codex|gemini|qwen|opencode|cline|copilot|cursor> [--wait S] [--expires S] [--channel TYPE[:TARGET]]... [--approver ID]... [--on-timeout deny|approve] [--agent-id ID]   (hook claude takes claude-hook's flags)",
  load: () => import('./agent-hook.js'),
};

/** Runs `tollgate hook` with `argv` (the arguments after the command name) as `main` would; resolves with the exit code. */
export function runHook(argv: string[]): Promise<number> {
  return runCommand('hook', hookCommand, argv);
}
