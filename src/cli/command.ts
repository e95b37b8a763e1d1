/**
 * @module cli/command
 * One CLI command and how it runs: `--help`, then the command, a {@link UsageError} printed with the usage line (exit
 * 2), any other error printed as a message (exit 1). Shared by `main` and by the `claude-hook` bundle
 * (`dist/hook/hook.cjs`), which runs that one command without loading the rest of the CLI, so both answer
 * alike.
 */
import { describeError } from '../api/errors.js';
import { terminalText } from '../utils/terminal-text.js';
import { UsageError } from './args.js';

/** One CLI command. */
export interface Command {
  summary: string;
  usage: string;
  /** Runs the command; resolves with the process exit code. */
  load(): Promise<{ run(argv: string[]): Promise<number> }>;
}

/** Runs `command` (named `name` in messages) with its arguments `argv`; resolves with the exit code. */
export async function runCommand(name: string, command: Command, argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${command.summary}\n\nUsage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await (await command.load()).run(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`tollgate ${name}: ${terminalText(error.message)}\nUsage: ${command.usage}\n`);
      return 2;
    }
    // A message may quote what a gateway or an agent sent: no control character of it reaches the terminal.
    process.stderr.write(`tollgate ${name}: ${terminalText(describeError(error))}\n`);
    return 1;
  }
}
