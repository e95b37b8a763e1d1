/**
 * @module cli/init
 * `tollgate init <agent> [--scope project|user] [--dir D] [--wait S] [--dry-run]`: writes the agent's hook
 * configuration (`agents/init-targets.ts`) so every tool call it makes asks tollgate first. Merges with what the file
 * holds, changes nothing when it is wired already, keeps a `.bak` of a file it changes, and prints the diff. With
 * `--dry-run` it prints the diff only. `tollgate init` alone lists the agents found on this machine and whether each
 * is wired (user scope, and the project in the working directory).
 *
 * The hook command it writes names this node and this tollgate's bin by absolute path: no `npx` (a second node start
 * per tool call) and no dependence on the agent's PATH.
 */
import { accessSync, constants, lstatSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, relative, resolve, sep } from 'node:path';
import { AGENT_ADAPTERS } from '../agents/index.js';
import { INIT_TARGETS, type InitPlace, type InitScope } from '../agents/init-targets.js';
import { AGENT_KINDS, agentName, type AgentKind } from '../requests/agent-kinds.js';
import { CLAUDE_HOOK_DEFAULT_WAIT_S } from '../integrations/claude-code-events.js';
import { terminalText } from '../utils/terminal-text.js';
import { flag, numberFlag, parseArgs, UsageError } from './args.js';
import { readContained, writeContained } from './contained-files.js';
import { hookBin } from './hook-bin.js';
import { lineDiff } from './line-diff.js';

/** The executables that say an agent is installed. */
const BINARIES: Record<AgentKind, string[]> = {
  claude: ['claude'],
  codex: ['codex'],
  gemini: ['gemini'],
  qwen: ['qwen'],
  opencode: ['opencode'],
  cline: ['cline'],
  copilot: ['copilot'],
  cursor: ['cursor', 'cursor-agent'],
};

/** The streams and environment the command uses (replaceable in tests). */
export interface InitIo {
  stdout: { write(s: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
  /** This tollgate's bin (`bin/tollgate.js`), for the hook command. */
  bin: string;
}

const defaultIo = (): InitIo => ({
  stdout: process.stdout,
  env: process.env,
  cwd: process.cwd(),
  bin: resolve(process.argv[1] ?? 'tollgate'),
});

/** Runs the command; resolves with the exit code. */
export async function run(argv: string[], io: InitIo = defaultIo()): Promise<number> {
  const args = parseArgs(argv, { values: ['scope', 'dir', 'wait'], booleans: ['dry-run'] });
  const [kind, extra] = args.positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const scope = (flag(args, 'scope') ?? 'project') as InitScope;
  if (scope !== 'project' && scope !== 'user') throw new UsageError('--scope is project or user');
  const place: InitPlace = {
    scope,
    dir: resolve(io.cwd, flag(args, 'dir') ?? '.'),
    home: io.env.HOME ?? homedir(),
    env: io.env,
  };
  if (kind === undefined) return list(io, place);
  if (!(AGENT_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`unknown agent "${kind}": one of ${AGENT_KINDS.join(', ')}`);
  const agent = kind as AgentKind;
  const waitS =
    numberFlag(args, 'wait') ?? (agent === 'claude' ? CLAUDE_HOOK_DEFAULT_WAIT_S : AGENT_ADAPTERS[agent].defaultWaitS);
  if (!(waitS > 0)) throw new UsageError('--wait must be more than 0 seconds');

  const target = INIT_TARGETS[agent];
  const file = target.file(place);
  if (typeof file !== 'string') throw new UsageError(file.unsupported);
  const durable = hookBin(io.bin, place.dir, io.env);
  const bin = `"${process.execPath}" "${durable.path}"`;
  const command = agent === 'claude' ? `${bin} claude-hook --timeout ${waitS}` : `${bin} hook ${agent} --wait ${waitS}`;
  // Only regular files inside the project (or the user's configuration directory), never through a link.
  const root = configRoot(place, file);
  const current = readContained(root, file);
  const next = target.render(current, command, waitS, place);
  const out = (s: string) => io.stdout.write(s);
  if (current === next) {
    out(`${agentName(agent)}: ${file} already asks tollgate; nothing changed.\n`);
    return 0;
  }
  out(
    `${args.flags['dry-run'] ? 'Would change' : 'Changing'} ${file}:\n${terminalText(lineDiff(current ?? '', next))}`,
  );
  if (args.flags['dry-run']) return 0;
  if (current !== null) writeContained(root, `${file}.bak`, current, target.executable);
  writeContained(root, file, next, target.executable);
  out(
    `${agentName(agent)} now asks tollgate before its tool calls (waiting ${waitS} s, then answering "run it again once approved").${current !== null ? ` The old file is ${file}.bak.` : ''}\n`,
  );
  out(`The hook runs ${durable.path} (${durable.what}).\n`);
  if (target.note) out(`${target.note}\n`);
  out("The hook reads TOLLGATE_URL and TOLLGATE_TOKEN (a request:create token) from the agent's environment.\n");
  return 0;
}

/** `tollgate init` alone: each agent, whether it is installed, and whether its configuration asks tollgate. */
function list(io: InitIo, place: InitPlace): number {
  const lines = AGENT_KINDS.map((agent) => {
    const installed = BINARIES[agent].some((name) => onPath(name, io.env.PATH ?? ''));
    const wired = (['user', 'project'] as const).filter((scope) => {
      const file = INIT_TARGETS[agent].file({ ...place, scope });
      return typeof file === 'string' && isRegularFile(file) && INIT_TARGETS[agent].wired(readFileSync(file, 'utf8'));
    });
    return `${agent.padEnd(9)} ${(installed ? 'found' : 'not found').padEnd(10)} ${wired.length ? `wired (${wired.join(', ')})` : 'not wired'}`;
  });
  io.stdout.write(
    `agent     installed  tollgate\n${lines.join('\n')}\n\nWire one: tollgate init <agent> [--scope project|user] [--dir D] [--wait S] [--dry-run]\n`,
  );
  return 0;
}

/** Whether `path` is a regular file (not a link, a device or a pipe a read would hang on). */
function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The directory init may write in for `file`: the project, or for `--scope user` the deepest of the user's
 * configuration directories (`CODEX_HOME`, `XDG_CONFIG_HOME`, `HOME`) that holds it. Links below it are refused.
 */
function configRoot(place: InitPlace, file: string): string {
  if (place.scope === 'project') return place.dir;
  const inside = (dir: string) => !relative(dir, file).startsWith('..') && !relative(dir, file).startsWith(sep);
  const roots = [place.env.CODEX_HOME, place.env.XDG_CONFIG_HOME, place.home]
    .filter((dir): dir is string => Boolean(dir))
    .map((dir) => resolve(dir))
    .filter(inside)
    .sort((a, b) => b.length - a.length);
  return roots[0] ?? place.home;
}

function onPath(name: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
