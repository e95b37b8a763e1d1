/**
 * @module cli/args
 * A tiny flag parser for the CLI (`--port 8787`, `--port=8787`, repeated `--channel`, positionals). Each command
 * names the options it takes; any other is refused by name ("unknown option --halp"), never read as a value-taking
 * flag or silently ignored: a misspelt `--dry-run` must not write.
 */

/** Parsed command line: flags (repeatable ones as arrays) and positionals. */
export interface ParsedArgs {
  flags: Record<string, string[]>;
  positionals: string[];
}

/**
 * The flags every asking command takes for its request (`ask`, `mcp`, the hooks; request-flags.ts reads them). Here,
 * not there: the hooks' bundle must not pull request-flags.ts and its validators in to list five names.
 */
export const REQUEST_FLAGS = ['channel', 'approver', 'expires', 'on-timeout', 'agent-id'] as const;

/** The options a command takes: `values` take a value (`--port 8787`), `booleans` none (`--json`). */
export interface ArgSpec {
  values?: readonly string[];
  booleans?: readonly string[];
}

/** Parses `argv` by `spec`; an option `spec` does not name is a {@link UsageError} naming it. */
export function parseArgs(argv: string[], spec: ArgSpec = {}): ParsedArgs {
  const booleans = spec.booleans ?? [];
  const values = spec.values ?? [];
  const flags: Record<string, string[]> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!booleans.includes(name) && !values.includes(name)) throw new UsageError(`unknown option --${name}`);
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (booleans.includes(name)) value = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    (flags[name] ??= []).push(value);
  }
  return { flags, positionals };
}

/** The last value of a flag. */
export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags[name]?.at(-1);
}

/** A flag as a number, or a {@link UsageError}. */
export function numberFlag(args: ParsedArgs, name: string): number | undefined {
  const value = flag(args, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

/** Wrong command-line usage: printed with the help hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
