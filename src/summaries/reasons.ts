/**
 * @module summaries/reasons
 * The stable risk codes: each with its level and its sentence. Policy rules match the codes, so a code never changes
 * meaning; a new danger gets a new code.
 */
import type { Risk, RiskReason } from './types.js';

/** Every code a summary may give, its level and its default sentence. */
export const REASONS = {
  recursive_delete: ['high', 'Deletes files recursively'],
  forced_delete: ['medium', 'Deletes files without asking'],
  history_rewrite: ['high', 'Rewrites git history'],
  privilege: ['high', 'Runs with raised privileges'],
  world_writable: ['high', 'Makes files writable by everyone'],
  remote_code: ['high', 'Runs code fetched from the network'],
  eval: ['high', 'Evaluates a string as code'],
  network: ['medium', 'Reaches the network'],
  write_outside_cwd: ['high', 'Writes outside the working directory'],
  secret_read: ['high', 'Reads secrets'],
  package_install: ['medium', 'Installs packages'],
  db_destructive: ['high', 'Runs a destructive database statement'],
  disk_overwrite: ['high', 'Overwrites a disk or file system'],
  shell_unparsed: ['medium', 'The command could not be parsed'],
  too_large: ['medium', 'Too large to read in full'],
  path_outside_cwd: ['high', 'Changes a file outside the working directory'],
  secret_file: ['high', 'Changes a file that holds secrets'],
  file_deleted: ['medium', 'Deletes a file'],
  patch_unparsed: ['medium', 'The patch could not be read'],
  sql_unparsed: ['medium', 'The SQL could not be parsed'],
  sql_drop: ['high', 'Drops a table or database'],
  sql_truncate: ['high', 'Empties a table'],
  sql_unbounded_write: ['high', 'Updates or deletes every row (no WHERE)'],
  sql_write: ['medium', 'Changes data'],
  sql_schema_change: ['medium', 'Changes the schema'],
  mcp_destructive: ['high', 'The tool says it may destroy data'],
  mcp_open_world: ['medium', 'The tool says it reaches outside systems'],
  mcp_writes: ['medium', 'The tool says it changes things, though nothing destructively'],
  mcp_read_only: ['low', 'The tool says it only reads'],
  mcp_unannotated: ['medium', 'The tool says nothing of what it does'],
  unknown_tool: ['medium', 'What this tool does is not known to tollgate'],
  summary_failed: ['medium', 'The call could not be summarized'],
} as const satisfies Record<string, readonly [Risk, string]>;

/** A known risk code. */
export type ReasonCode = keyof typeof REASONS;

/** A reason with its level, `detail` appended to the sentence (`Reaches the network: example.com`). */
export function reason(code: ReasonCode, detail?: string): RiskReason & { risk: Risk } {
  const [risk, text] = REASONS[code];
  return { code, risk, text: detail ? `${text}: ${detail}` : text };
}

/**
 * A reason read back into its code and what {@link reason} appended to its sentence (`example.com` of `Reaches the
 * network: example.com`), for a card that words the sentence in another language; null when the text is not the
 * code's sentence (an unknown code, a row written by another version), which is then shown as written.
 * @example reasonParts({ code: 'network', text: 'Reaches the network: example.com' }) // { code: 'network', detail: 'example.com' }
 */
export function reasonParts(r: RiskReason): { code: ReasonCode; detail?: string } | null {
  if (!Object.hasOwn(REASONS, r.code)) return null;
  const code = r.code as ReasonCode;
  const sentence = REASONS[code][1];
  if (r.text === sentence) return { code };
  return r.text.startsWith(`${sentence}: `) ? { code, detail: r.text.slice(sentence.length + 2) } : null;
}
