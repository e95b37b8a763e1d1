/**
 * @module summaries/shell
 * The shell summarizer: `Bash`, Codex `exec_command`/`shell`, Gemini and Qwen `run_shell_command`, Cursor's
 * `beforeShellExecution`, OpenCode's `bash`, Cline's `execute_command` (the extension) and `run_commands` (the 3.0 CLI)
 * and terminal-like MCP tools. Lists every
 * program the command runs (wrappers like `sudo`, `env`, `xargs` and `bash -c` opened) and names what matters.
 */
import { maskSecretsInLine } from '../utils/json-view.js';
import { reason, type ReasonCode } from './reasons.js';
import { parseShell, type SimpleCommand } from './shell-parser.js';
import { commandRisk, FETCHERS, innerCommand, INTERPRETERS, programName } from './shell-rules.js';
import { analyzeSql } from './sql.js';
import type { CommandSummary, Finding, StatementSummary, Summarizer, SummaryContext } from './types.js';

/** Characters of a command parsed at most. */
export const MAX_COMMAND_CHARS = 32_000;
/** Programs listed at most. */
const MAX_COMMANDS = 50;
/** How deep `bash -c '…'` inside `bash -c '…'` is opened. */
const MAX_NESTING = 3;

/** Tool names that run a shell command. */
const SHELL_TOOL =
  /^(bash|shell|exec_command|run_shell_command|run_terminal_cmd|execute_command|run_commands|beforeShellExecution|terminal|run_command|exec|command|sh|local_shell|container\.exec)$|shell|terminal|bash/i;
/** Database clients and the options that carry SQL. */
const DB_CLIENTS: Record<string, RegExp> = {
  psql: /^(-c|--command)$/,
  mysql: /^(-e|--execute)$/,
  mariadb: /^(-e|--execute)$/,
  sqlite3: /^$/,
  duckdb: /^(-c)$/,
  clickhouse: /^(-q|--query)$/,
  'clickhouse-client': /^(-q|--query)$/,
};

/** An argv word as the shell reads it back: quoted unless plain. */
const quote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/**
 * Cline 3.0's `run_commands` list, as its schema has it (`{commands: ["…", {command, args}]}`, or one of them), one
 * command line a line; null when it is not one.
 */
function commandList(value: unknown): string | null {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const lines = list.map((c) => {
    if (typeof c === 'string') return c;
    const { command, args } = (c ?? {}) as { command?: unknown; args?: unknown };
    if (typeof command !== 'string') return null;
    const rest = Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [];
    return [command, ...rest.map(quote)].join(' ');
  });
  return lines.length && lines.every((l) => l !== null) ? lines.join('\n') : null;
}

/** The command line of a shell call: a string, or an argv whose `bash -lc` is opened. */
export function commandOf(toolName: string, args: Record<string, unknown>): string | null {
  const tool = toolName.replace(/^mcp__[^_]+__/, '');
  if (args.command === undefined && /^run_commands$/i.test(tool)) return commandList(args.commands);
  const value = args.command ?? args.cmd ?? args.script ?? args.commandLine;
  if (typeof value === 'string') return SHELL_TOOL.test(tool) ? value : null;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length) {
    const argv = value as string[];
    if (argv[0] === 'apply_patch') return null;
    if (/^(ba|z|da)?sh$/.test(programName(argv[0]!)) && /^-\w*c$/.test(argv[1] ?? '') && argv[2]) return argv[2];
    return argv.map(quote).join(' ');
  }
  return null;
}

/** The commands of a command's substitutions, and of theirs (`sh -c "$(echo "$(curl …)")"` runs the fetch too). */
function nestedSubstitutions(command: SimpleCommand): SimpleCommand[] {
  const all: SimpleCommand[] = [];
  const stack = [...command.substitutions];
  while (stack.length) {
    const next = stack.pop()!;
    all.push(next);
    stack.push(...next.substitutions);
  }
  return all;
}

class ShellReading {
  readonly commands: CommandSummary[] = [];
  readonly statements: StatementSummary[] = [];
  readonly reasons = new Map<ReasonCode, string[]>();
  truncated = false;
  unparsed: string | null = null;

  constructor(private readonly cwd: string | null | undefined) {}

  raise(code: ReasonCode, ...details: string[]): void {
    const list = this.reasons.get(code) ?? [];
    for (const d of details) if (d && !list.includes(d)) list.push(d);
    this.reasons.set(code, list);
  }

  async read(source: string, depth: number): Promise<void> {
    const parsed = await parseShell(source);
    if ('overBudget' in parsed) {
      this.unparsed = parsed.overBudget;
      return;
    }
    if (parsed.hasError) this.unparsed = 'syntax error';
    await this.readCommands(parsed.commands, depth);
  }

  private async readCommands(commands: SimpleCommand[], depth: number): Promise<void> {
    for (const command of commands) {
      // Remote code: a fetcher's output piped into an interpreter of the same pipeline.
      const program = programName(innerCommand(command.argv)?.[0] ?? command.argv[0] ?? '');
      if (INTERPRETERS.has(program) && command.stage > 0) {
        const fed = commands.some(
          (c) =>
            c.pipeline === command.pipeline && c.stage < command.stage && FETCHERS.has(programName(c.argv[0] ?? '')),
        );
        if (fed) this.raise('remote_code', program);
      }
      // `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`.
      if (
        (INTERPRETERS.has(program) || program === 'eval') &&
        nestedSubstitutions(command).some((s) => FETCHERS.has(programName(s.argv[0] ?? '')))
      )
        this.raise('remote_code', program);
      await this.readArgv(command.argv, command, depth);
      await this.readCommands(command.substitutions, depth);
      // A shell reading its standard input runs the heredoc it is given, or one fed to it down its pipeline
      // (`bash <<EOF`, `cat <<EOF | sudo bash`): the body is a script.
      const argv = innerCommand(command.argv) ?? command.argv;
      if (/^(ba|z|da|k)?sh$/.test(program) && !argv.some((a) => /^-\w*c$/.test(a)) && depth < MAX_NESTING) {
        const fed = commands.filter(
          (c) => c === command || (c.pipeline === command.pipeline && c.stage < command.stage),
        );
        for (const body of fed.flatMap((c) => c.stdin)) await this.read(body, depth + 1);
      }
    }
  }

  private async readArgv(argv: string[], command: SimpleCommand, depth: number): Promise<void> {
    if (!argv.length) {
      const risk = commandRisk(['true'], command.writes, command.reads, this.cwd);
      this.note(risk);
      return;
    }
    const risk = commandRisk(argv, command.writes, command.reads, this.cwd);
    // Past the listed programs the risk is still read: a `sudo rm -rf /` after fifty `echo`s is as high a risk.
    if (this.commands.length >= MAX_COMMANDS) this.truncated = true;
    else
      this.commands.push({
        program: maskSecretsInLine(programName(argv[0]!)),
        args: argv.slice(1, 21).map((a) => maskSecretsInLine(a.length > 200 ? `${a.slice(0, 199)}…` : a)),
        flags: risk.flags,
      });
    this.note(risk);
    const program = programName(argv[0]!);
    await this.readSql(program, argv, command.stdin);
    const inner = innerCommand(argv);
    if (inner) return this.readArgv(inner, { ...command, writes: [], reads: [] }, depth);
    const script = /^(ba|z|da|k)?sh$/.test(program) ? argv[argv.findIndex((a) => /^-\w*c$/.test(a)) + 1] : undefined;
    if (script && argv.some((a) => /^-\w*c$/.test(a)) && depth < MAX_NESTING) await this.read(script, depth + 1);
  }

  private note(risk: ReturnType<typeof commandRisk>): void {
    for (const flag of risk.flags) {
      const detail =
        flag === 'network'
          ? risk.hosts
          : flag === 'write_outside_cwd'
            ? risk.outside
            : flag === 'secret_read'
              ? risk.secrets
              : [];
      this.raise(flag, ...detail);
    }
  }

  /** SQL a database client runs (`psql -c`, `mysql -e`, `sqlite3 db "…"`, a heredoc): destructive statements named. */
  private async readSql(program: string, argv: string[], stdin: string[]): Promise<void> {
    const option = DB_CLIENTS[program];
    if (!option) return;
    const texts = [...stdin];
    const at = argv.findIndex((a, i) => i > 0 && option.test(a) && a !== '');
    if (at > 0 && argv[at + 1]) texts.push(argv[at + 1]!);
    if (program === 'sqlite3' && argv.length >= 3 && !argv.at(-1)!.startsWith('-')) texts.push(argv.at(-1)!);
    for (const sql of texts) {
      try {
        const { statements, reasons } = await analyzeSql(sql);
        this.statements.push(...statements);
        if (reasons.some((r) => r.risk === 'high'))
          this.raise(
            'db_destructive',
            ...statements
              .filter((s) => s.flags.length)
              .map((s) => `${s.kind.toUpperCase()} ${s.tables.join(', ')}`.trim()),
          );
      } catch {
        this.raise('sql_unparsed', `SQL given to ${program}`);
      }
    }
  }
}

/** The shell summarizer. */
export const shellSummarizer: Summarizer = {
  kind: 'shell',
  accepts: (toolName, args) => commandOf(toolName, args) !== null,
  async summarize(toolName: string, args: Record<string, unknown>, context: SummaryContext): Promise<Finding> {
    const source = commandOf(toolName, args) ?? '';
    if (source.length > MAX_COMMAND_CHARS)
      return {
        kind: 'shell',
        commands: [],
        reasons: [reason('too_large', `${source.length} characters`)],
        truncated: true,
      };
    const reading = new ShellReading(context.cwd);
    await reading.read(source, 0);
    const reasons: Finding['reasons'] = [...reading.reasons].map(([code, details]) =>
      reason(
        code,
        details.slice(0, 5).join(', ') + (details.length > 5 ? ` and ${details.length - 5} more` : '') || undefined,
      ),
    );
    if (reading.unparsed) reasons.push(reason('shell_unparsed', reading.unparsed));
    return {
      kind: 'shell',
      commands: reading.commands,
      ...(reading.statements.length ? { statements: reading.statements } : {}),
      reasons,
      truncated: reading.truncated,
    };
  },
};
