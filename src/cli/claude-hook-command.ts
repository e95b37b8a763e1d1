/**
 * @module cli/claude-hook-command
 * The `claude-hook` command as `main` lists it, and the entry of its bundle. Claude Code starts a fresh `node` per
 * tool call for this command, so the package build (`scripts/build-hook.ts`) bundles this module with what it runs
 * into one CommonJS file, `dist/hook/hook.cjs`, which `bin/tollgate.js` loads directly for `claude-hook`:
 * no resolving and reading of a dozen files, no ES module loader, none of the other commands.
 */
import { runCommand, type Command } from './command.js';

/** `tollgate claude-hook`. */
export const claudeHookCommand: Command = {
  summary:
    'Claude Code PreToolUse / PermissionRequest hook: reads the hook JSON on stdin, waits for a verdict, prints hookSpecificOutput; on PostToolUse it records a receipt.',
  usage:
    'tollgate claude-hook [--wait 540] [--expires S] [--channel TYPE[:TARGET]]... [--approver ID]... [--on-timeout deny|approve] [--agent-id ID]',
  load: () => import('./claude-hook.js'),
};

/** Runs `tollgate claude-hook` with `argv` (the arguments after the command name) as `main` would; resolves with the exit code. */
export function runClaudeHook(argv: string[]): Promise<number> {
  return runCommand('claude-hook', claudeHookCommand, argv);
}
