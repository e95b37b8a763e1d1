/**
 * @module requests/agent-kinds
 * The coding agents `tollgate hook <agent>` speaks for, and the one sentence a card says about one of their calls
 * ("Codex in acme/billing on main wants to run `terraform apply`"). Import-free: the hook's bundle reads the list too.
 */

/** Every agent `tollgate hook` has an adapter for (`claude` is `tollgate claude-hook`). */
export const AGENT_KINDS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'cline', 'copilot', 'cursor'] as const;
/** One of {@link AGENT_KINDS}. */
export type AgentKind = (typeof AGENT_KINDS)[number];

/**
 * The agents whose hook can run arguments an approver edited (Claude Code's `updatedInput`, Gemini CLI's `tool_input`,
 * …). Codex reserves its field and Cursor has none: their adapters answer an edited approval with a deny naming the
 * edited call, so the gateway must not record it as run.
 */
const RUNS_EDITED_ARGS: ReadonlySet<string> = new Set<AgentKind>([
  'claude',
  'gemini',
  'qwen',
  'opencode',
  'cline',
  'copilot',
]);

/** Whether `kind`'s hook can run arguments an approver edited (see {@link RUNS_EDITED_ARGS}). */
export function runsEditedArgs(kind: string): boolean {
  return RUNS_EDITED_ARGS.has(kind);
}

const NAMES: Record<AgentKind, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  opencode: 'OpenCode',
  cline: 'Cline',
  copilot: 'Copilot CLI',
  cursor: 'Cursor',
};

/** The product name of an agent kind (`Gemini CLI`); an unknown kind as it is. */
export function agentName(kind: string): string {
  return (NAMES as Record<string, string>)[kind] ?? kind;
}

/** Longest command or path a sentence quotes before cutting it. */
const MAX_QUOTED = 200;

/** What the call does, in a few words: a shell command as the command, a file edit as its path. */
function actionOf(toolName: string, args: Record<string, unknown>): string {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.replace(/\s+/g, ' ').trim() : null);
  const quote = (v: string) => `\`${v.length > MAX_QUOTED ? `${v.slice(0, MAX_QUOTED)}…` : v}\``;
  const command = text(args.command) ?? text(args.cmd);
  if (command) return `run ${quote(command)}`;
  const path = text(args.file_path) ?? text(args.path) ?? text(args.filePath) ?? text(args.absolute_path);
  if (path) return `use ${toolName} on ${quote(path)}`;
  return `run ${quote(toolName)}`;
}

/** "Codex in acme/billing on main wants to run `terraform apply -auto-approve`." */
export function agentSentence(
  kind: string,
  context: { repo: string | null; branch: string | null } | null,
  toolName: string,
  args: Record<string, unknown>,
): string {
  const where = `${context?.repo ? ` in ${context.repo}` : ''}${context?.branch ? ` on ${context.branch}` : ''}`;
  return `${agentName(kind)}${where} wants to ${actionOf(toolName, args)}.`;
}
