#!/usr/bin/env node
/**
 * @module cli/main
 * `tollgate <command>`: dispatches to one module per command, loaded only when used so `tollgate ask` starts fast.
 */
import { VERSION } from '../version.js';
import { claudeHookCommand } from './claude-hook-command.js';
import { runCommand, type Command } from './command.js';
import { hookCommand } from './hook-command.js';

/** Every command, by name. */
export const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'Run the gateway (SQLite + in-process scheduler by default; BullMQ when REDIS_URL is set).',
    usage: 'tollgate serve [--port 8787] [--db ./data/tollgate.db] [--config tollgate.yaml] [--host 127.0.0.1]',
    load: () => import('./serve.js'),
  },
  migrate: {
    summary: 'Apply database migrations (serve does this at start too).',
    usage:
      'tollgate migrate [--db ./data/tollgate.db | --db postgres://…] | tollgate migrate --from ./data/tollgate.db --to postgres://…',
    load: () => import('./migrate.js'),
  },
  ask: {
    summary: 'Ask a human and wait: exit 0 approved, 1 denied/expired/cancelled (for shell scripts and CI).',
    usage:
      'tollgate ask [--expires S] [--channel TYPE[:TARGET]]... [--approver ID]... [--on-timeout deny|approve] [--tool NAME] [--json] [--quiet] "question"',
    load: () => import('./ask.js'),
  },
  'claude-hook': claudeHookCommand,
  hook: hookCommand,
  init: {
    summary:
      "Wire a coding agent's hook to tollgate (merging with its configuration, idempotent, a .bak and the diff); alone, list the agents found and whether each is wired.",
    usage:
      'tollgate init [<claude|codex|gemini|qwen|opencode|cline|copilot|cursor>] [--scope project|user] [--dir D] [--wait S] [--dry-run]',
    load: () => import('./init.js'),
  },
  token: {
    summary: 'Create, list or revoke scoped API tokens (needs an admin TOLLGATE_TOKEN).',
    usage:
      'tollgate token create NAME --scope SCOPE... [--as web:alice | --as person:alice] [--person ID] [--expires-in S] [--json] | tollgate token list [--json] | tollgate token revoke ID',
    load: () => import('./token.js'),
  },
  'login-link': {
    summary:
      'Print a new one-time web login link from the running gateway, without a restart (needs an admin TOLLGATE_TOKEN).',
    usage: 'tollgate login-link [--user NAME] [--json]',
    load: () => import('./login-link.js'),
  },
  mcp: {
    summary:
      "MCP gating proxy: serves an upstream MCP server's tools, resources and prompts and asks a human before tool calls that are not read-only.",
    usage:
      'tollgate mcp [--name NAME] [--gate GLOB]... [--allow GLOB]... [--approver ID]... [--channel TYPE[:TARGET]]... [--timeout S] [--progress S] [--require-verdict [--jwks-url URL]] (-- <command> [args...] | --upstream-url URL [--header "Name: value"]...)',
    load: () => import('./mcp.js'),
  },
  policy: {
    summary:
      'Explain the approval policy (which rule a tool call would meet, why, how it would be asked), suggest rules from the history, or replay a candidate policy over it.',
    usage:
      'tollgate policy test --tool NAME [--args JSON] [--agent ID] [--user ID] [--session ID] [--agent-kind codex] [--repo OWNER/NAME] [--cwd DIR] [--metadata JSON] [--config tollgate.yaml] [--json] | tollgate policy suggest [--since 30d] [--until ISO] [--min 10] [--db PATH|URL] [--json] | tollgate policy simulate --config candidate.yaml [--since 30d] [--until ISO] [--db PATH|URL] [--json]   (suggest and simulate ask the gateway at TOLLGATE_URL when it is set; --db reads a database)',
    load: () => import('./policy.js'),
  },
  pending: {
    summary: 'What waits for you: pending requests your TOLLGATE_TOKEN may decide (a live view: tollgate watch).',
    usage: 'tollgate pending [--json]   (TOLLGATE_URL, TOLLGATE_TOKEN: a decide token bound to you)',
    load: async () => ({ run: (await import('./approvals.js')).pending }),
  },
  show: {
    summary: 'Show one request: tool, arguments (masked), approvers, status and events.',
    usage: 'tollgate show ID [--json]',
    load: async () => ({ run: (await import('./approvals.js')).show }),
  },
  approve: {
    summary: 'Approve a request from the terminal, as the identity TOLLGATE_TOKEN is bound to.',
    usage: 'tollgate approve ID [--reason TEXT] [--grant LABEL] [--args JSON] [--json]',
    load: async () => ({ run: (await import('./approvals.js')).approve }),
  },
  deny: {
    summary: 'Deny a request from the terminal, as the identity TOLLGATE_TOKEN is bound to.',
    usage: 'tollgate deny ID [--reason TEXT] [--json]',
    load: async () => ({ run: (await import('./approvals.js')).deny }),
  },
  watch: {
    summary: 'A live view of what waits for you, redrawn every few seconds until Ctrl-C.',
    usage: 'tollgate watch [--every S]',
    load: async () => ({ run: (await import('./approvals.js')).watch }),
  },
  people: {
    summary:
      'Show the people directory from the config file: people, groups, and what an approver reference stands for.',
    usage:
      'tollgate people list | tollgate people show ID | tollgate people resolve REFERENCE  [--config tollgate.yaml] [--json]',
    load: () => import('./people.js'),
  },
  audit: {
    summary: 'Query the confirmation table from the database file (offline).',
    usage:
      'tollgate audit [--db FILE] [--status S] [--tool NAME] [--agent ID] [--agent-kind codex] [--repo OWNER/NAME] [--approver ID] [--person ID] [--since ISO] [--until ISO] [--limit N] [--format table|csv|ndjson] [--events ID] | tollgate audit export [--format ndjson|csv] [filters] | tollgate audit verify [--keys JWKS_FILE] [--since ISO] [--db …] [--json]',
    load: () => import('./audit.js'),
  },
  keys: {
    summary:
      'Export the public keys a verifier pins (current and retired), or rotate the signing key file of a SQLite deployment.',
    usage:
      'tollgate keys export [--db ./data/tollgate.db | --db postgres://…] [--out FILE] | tollgate keys rotate [--db FILE]',
    load: () => import('./keys.js'),
  },
  prune: {
    summary:
      'Delete requests decided before a date, with their events, in batches; the audit chain keeps verifying from a signed checkpoint.',
    usage:
      'tollgate prune --before DATE [--db ./data/tollgate.db | --db postgres://…] [--dry-run] [--batch 1000] [--json]',
    load: () => import('./prune.js'),
  },
};

/** The help text. */
export function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    `tollgate ${VERSION}: human-in-the-loop approval gateway for AI-agent tool calls`,
    '',
    'Usage: tollgate <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run `tollgate <command> --help` for a command's options.",
    'One vocabulary: --wait S is how long a hook waits for a verdict (every agent hook and init); --expires S is when the',
    'request it files expires (ask waits until then); --timeout, the old spelling of both, still works, deprecated.',
    'Client commands read TOLLGATE_URL and TOLLGATE_TOKEN. An option a command does not take is refused by name.',
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`tollgate: unknown command "${name}"\n\n${helpText()}\n`);
    return 2;
  }
  return runCommand(name, command, rest);
}

const invokedDirectly =
  process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0');
if (invokedDirectly || process.env.TOLLGATE_CLI === '1') {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
