/**
 * @module summaries/types
 * The call summary contract: what a call will do, worded for an approver, computed once when the request is filed.
 *
 * @remarks Deterministic (no model, no file system, no network): the same tool name, arguments and context always give
 * the same summary. It leaves out what the gateway cannot see: the current content of a file a `Write` replaces, what a
 * program named in a command does beyond its flags, and whether an MCP server's annotations are true (they are hints).
 */

/** How risky a call looks. */
export type Risk = 'low' | 'medium' | 'high';

/** The risk levels in order, lowest first. */
export const RISKS: readonly Risk[] = ['low', 'medium', 'high'];

/** One reason for a call's risk: a stable `code` rules can match, and a sentence for people. */
export interface RiskReason {
  code: string;
  text: string;
}

/** One file an edit adds, changes or deletes. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** Lines added and removed. */
  added: number;
  removed: number;
  /** Unified diff text (hunks), secrets masked, bounded in size. */
  diff: string;
  /** True when the path leaves the session's working directory. */
  outside_cwd: boolean;
}

/** One program a shell command runs, with the risk codes its own arguments raise. */
export interface CommandSummary {
  program: string;
  args: string[];
  flags: string[];
}

/** One SQL statement. */
export interface StatementSummary {
  /** `select`, `insert`, `update`, `delete`, `drop`, `truncate`, … (lower case). */
  kind: string;
  tables: string[];
  flags: string[];
}

/** An MCP tool's annotations, as its upstream server declared them in `tools/list`. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a call will do (the API's `summary`). */
export interface CallSummary {
  kind: 'edit' | 'shell' | 'sql' | 'mcp' | 'other';
  risk: Risk;
  risk_reasons: RiskReason[];
  files?: FileChange[];
  commands?: CommandSummary[];
  statements?: StatementSummary[];
  annotations?: ToolAnnotations;
  /** True when something was left out to keep the summary within its bounds. */
  truncated: boolean;
}

/** What a summarizer knows of where the call runs. */
export interface SummaryContext {
  /** The agent's working directory, when it said. */
  cwd?: string | null;
  /** An MCP tool's annotations, when `tollgate mcp` read them. */
  annotations?: ToolAnnotations | null;
}

/** What one summarizer found: the parts of a summary, before the risk is settled. */
export interface Finding {
  kind: CallSummary['kind'];
  reasons: (RiskReason & { risk: Risk })[];
  files?: FileChange[];
  commands?: CommandSummary[];
  statements?: StatementSummary[];
  annotations?: ToolAnnotations;
  truncated?: boolean;
}

/**
 * One summarizer: says whether it reads a call, and what the call does.
 * @remarks `summarize` may throw; {@link summarize} turns a throw into a `medium` reason of its own.
 */
export interface Summarizer {
  kind: CallSummary['kind'];
  /** True when this summarizer reads the call (by tool name or argument shape). */
  accepts(toolName: string, args: Record<string, unknown>, context: SummaryContext): boolean;
  summarize(toolName: string, args: Record<string, unknown>, context: SummaryContext): Promise<Finding> | Finding;
}
