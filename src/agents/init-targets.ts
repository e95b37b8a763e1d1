/**
 * @module agents/init-targets
 * Where each coding agent reads its hook configuration, and what `tollgate init <agent>` writes there: the agent's
 * own format, merged with what the file holds (other hooks and settings stay; an earlier tollgate entry is replaced,
 * so running it twice changes nothing), with the agent's hook timeout set from `--wait` (a little longer, so the hook
 * always answers first: most agents run the command when a hook times out).
 */
import { join } from 'node:path';
import type { AgentKind } from '../requests/agent-kinds.js';

/** Where the configuration goes: the project (a directory) or the user's home. */
export type InitScope = 'project' | 'user';

/** What `init` needs to place and word an agent's configuration. */
export interface InitPlace {
  scope: InitScope;
  /** The project directory (`--dir`, default the working directory). */
  dir: string;
  home: string;
  env: Record<string, string | undefined>;
}

/** One agent's configuration target. */
export interface InitTarget {
  /** The file `init` writes, or why this scope has none. */
  file(place: InitPlace): string | { unsupported: string };
  /**
   * The file's new text given its current text (null: no file yet) and the hook command line. Throws an Error naming
   * the problem when the current text cannot be merged (not JSON, say).
   */
  render(current: string | null, command: string, waitS: number, place: InitPlace): string;
  /** Whether a file's text wires tollgate (for `tollgate init`'s list). */
  wired(text: string): boolean;
  /** Printed after writing: what the agent still needs (Codex's hook trust, say). */
  note?: string;
  /** Whether the file must be executable (Cline runs the hook file itself). */
  executable?: boolean;
}

/** Seconds added to `--wait` for the agent's own hook timeout. */
const TIMEOUT_MARGIN_S = 10;
/** A hook command line that runs tollgate's hook (also as it reads inside JSON text, its quotes escaped). */
const isOurs = (command: unknown) =>
  typeof command === 'string' && /tollgate(\.js)?[\\"]*\s.*(hook [a-z]+|claude-hook)/.test(command);

type Json = Record<string, unknown>;

function parseJson(current: string | null, what: string): Json {
  if (current === null || !current.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(current);
  } catch (error) {
    throw new Error(`${what} is not valid JSON (${(error as Error).message}): fix or move it, then run init again`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${what} is not a JSON object`);
  return parsed as Json;
}

const objectAt = (parent: Json, key: string): Json => {
  const value = parent[key];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  return (parent[key] = {});
};
const arrayAt = (parent: Json, key: string): unknown[] =>
  Array.isArray(parent[key]) ? (parent[key] as unknown[]) : (parent[key] = []);

/**
 * Claude-style matcher groups (`{matcher, hooks: [{type, command, timeout}]}`) under `hooks.<event>`: every group's
 * tollgate hooks are dropped (a group left empty goes), then `group` is appended.
 */
function mergeMatcherGroups(config: Json, event: string, group: Json): void {
  const groups = arrayAt(objectAt(config, 'hooks'), event);
  const kept = groups.flatMap((g) => {
    if (typeof g !== 'object' || g === null || !Array.isArray((g as Json).hooks)) return [g];
    const hooks = ((g as Json).hooks as unknown[]).filter((hook) => !isOurs((hook as Json | null)?.command));
    return hooks.length ? [{ ...(g as Json), hooks }] : [];
  });
  objectAt(config, 'hooks')[event] = [...kept, group];
}

/** Flat hook lists (`hooks.<event>: [{command, …}]`, Cursor and Copilot CLI): tollgate's entries replaced. */
function mergeFlat(config: Json, event: string, entry: Json, commandKey = 'command'): void {
  const entries = arrayAt(objectAt(config, 'hooks'), event).filter((e) => !isOurs((e as Json | null)?.[commandKey]));
  objectAt(config, 'hooks')[event] = [...entries, entry];
}

const pretty = (config: Json) => `${JSON.stringify(config, null, 2)}\n`;
const mentions = (text: string) => text.split('\n').some(isOurs);

/** A target whose file is JSON, merged by `merge`. */
function jsonTarget(
  file: InitTarget['file'],
  merge: (config: Json, command: string, waitS: number, place: InitPlace) => void,
  extra: Partial<InitTarget> = {},
): InitTarget {
  return {
    file,
    render(current, command, waitS, place) {
      const config = parseJson(current, 'the existing configuration');
      merge(config, command, waitS, place);
      return pretty(config);
    },
    wired: mentions,
    ...extra,
  };
}

const inProject =
  (...path: string[]) =>
  (place: InitPlace) =>
    join(place.scope === 'project' ? place.dir : place.home, ...path);

/** The script OpenCode loads as a plugin: runs the hook per tool call and throws unless it allows. */
function opencodePlugin(command: string): string {
  return `// Written by \`tollgate init opencode\`: every tool call asks tollgate (a human, or the policy) first.
// The hook answers {"allow": true} (with "args" when an approver edited them) or a reason to refuse; anything else
// (no answer, a crash) refuses too: the gate fails closed.
import { spawnSync } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};

export const Tollgate = async ({ directory }) => ({
  'tool.execute.before': async (input, output) => {
    const call = { tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args, directory };
    const run = spawnSync(COMMAND, { shell: true, input: JSON.stringify(call), encoding: 'utf8', maxBuffer: 8 * 1024 * 1024 });
    let answer = null;
    try {
      answer = JSON.parse(run.stdout);
    } catch {
      answer = null;
    }
    if (run.status !== 0 || !answer || answer.allow !== true) throw new Error(answer?.reason ?? \`tollgate: \${run.stderr || 'no answer'}\`);
    if (answer.args) Object.assign(output.args, answer.args);
  },
});
`;
}

/** Every agent's target. */
export const INIT_TARGETS: Readonly<Record<AgentKind, InitTarget>> = {
  claude: jsonTarget(inProject('.claude', 'settings.json'), (config, command, waitS) =>
    mergeMatcherGroups(config, 'PreToolUse', {
      matcher: 'Bash|Write|Edit|MultiEdit|NotebookEdit|mcp__.*',
      hooks: [{ type: 'command', command, timeout: waitS + TIMEOUT_MARGIN_S }],
    }),
  ),
  codex: jsonTarget(
    (place) =>
      place.scope === 'user'
        ? join(place.env.CODEX_HOME ?? join(place.home, '.codex'), 'hooks.json')
        : join(place.dir, '.codex', 'hooks.json'),
    (config, command, waitS) =>
      mergeMatcherGroups(config, 'PreToolUse', {
        matcher: '*',
        hooks: [{ type: 'command', command, timeout: waitS + TIMEOUT_MARGIN_S }],
      }),
    {
      note: 'Codex runs hooks only once they are trusted: review them in Codex (/hooks) once, or they are skipped silently.',
    },
  ),
  gemini: jsonTarget(inProject('.gemini', 'settings.json'), (config, command, waitS) =>
    mergeMatcherGroups(config, 'BeforeTool', {
      matcher: 'run_shell_command|write_file|replace',
      hooks: [{ name: 'tollgate', type: 'command', command, timeout: (waitS + TIMEOUT_MARGIN_S) * 1000 }],
    }),
  ),
  qwen: jsonTarget(inProject('.qwen', 'settings.json'), (config, command, waitS) =>
    mergeMatcherGroups(config, 'PreToolUse', {
      matcher: 'run_shell_command|write_file|edit',
      hooks: [{ type: 'command', command, timeout: waitS + TIMEOUT_MARGIN_S }],
    }),
  ),
  cursor: jsonTarget(inProject('.cursor', 'hooks.json'), (config, command, waitS) => {
    config.version ??= 1;
    mergeFlat(config, 'beforeShellExecution', { command, timeout: waitS + TIMEOUT_MARGIN_S });
    mergeFlat(config, 'beforeMCPExecution', { command, timeout: waitS + TIMEOUT_MARGIN_S });
  }),
  // The repository's .github/hooks/*.json, or the user's ~/.copilot/settings.json `hooks` (same schema). Copilot CLI
  // 1.0.102 run headless (-p) fires the user's hooks but not the repository's (it keeps no folder trust there).
  copilot: jsonTarget(
    (place) =>
      place.scope === 'user'
        ? join(place.home, '.copilot', 'settings.json')
        : join(place.dir, '.github', 'hooks', 'tollgate.json'),
    (config, command, waitS, place) => {
      if (place.scope === 'project') config.version ??= 1;
      mergeFlat(config, 'preToolUse', { type: 'command', bash: command, timeoutSec: waitS + TIMEOUT_MARGIN_S }, 'bash');
    },
  ),
  cline: {
    file: (place) =>
      place.scope === 'user'
        ? join(place.home, 'Documents', 'Cline', 'Hooks', 'PreToolUse')
        : join(place.dir, '.clinerules', 'hooks', 'PreToolUse'),
    render(current, command) {
      if (current !== null && current.trim() && !mentions(current))
        throw new Error(
          "a PreToolUse hook that is not tollgate's is there already: Cline runs one per name; merge them by hand",
        );
      return `#!/bin/sh\n# Written by \`tollgate init cline\`: every tool call asks tollgate (a human, or the policy) first.\nexec ${command}\n`;
    },
    wired: mentions,
    executable: true,
  },
  opencode: {
    file: (place) =>
      place.scope === 'user'
        ? join(place.env.XDG_CONFIG_HOME ?? join(place.home, '.config'), 'opencode', 'plugin', 'tollgate.js')
        : join(place.dir, '.opencode', 'plugin', 'tollgate.js'),
    render: (_current, command) => opencodePlugin(command),
    wired: (text) => text.includes('tollgate init opencode'),
  },
};
