/**
 * @module summaries/summarize
 * `summarize()`: picks the summarizer that reads a call, settles the risk from its reasons and keeps the result within
 * its bounds. It never throws: a summarizer that fails gives a `medium` summary that says so.
 */
import { editSummarizer } from './edit.js';
import { annotationReasons, cleanAnnotations } from './mcp.js';
import { mcpSummarizer } from './mcp.js';
import { reason } from './reasons.js';
import { shellSummarizer } from './shell.js';
import { sqlSummarizer } from './sql.js';
import { RISKS, type CallSummary, type Finding, type Risk, type Summarizer, type SummaryContext } from './types.js';

/** The summarizers in the order they are asked; the first that accepts a call reads it. */
export const SUMMARIZERS: readonly Summarizer[] = [editSummarizer, shellSummarizer, sqlSummarizer, mcpSummarizer];

/** Characters of a stored summary at most (its JSON); diffs are dropped from the last file back to fit. */
export const MAX_SUMMARY_CHARS = 64_000;

const higher = (a: Risk, b: Risk): Risk => (RISKS.indexOf(a) >= RISKS.indexOf(b) ? a : b);

/** A finding as a summary: the risk is the highest of its reasons, low when there are none. */
function settle(finding: Finding): CallSummary {
  const seen = new Set<string>();
  const reasons = finding.reasons.filter((r) => !seen.has(r.code) && seen.add(r.code));
  const risk = reasons.reduce<Risk>((level, r) => higher(level, r.risk), 'low');
  const summary: CallSummary = {
    kind: finding.kind,
    risk,
    risk_reasons: reasons.map(({ code, text }) => ({ code, text })),
    ...(finding.files ? { files: finding.files } : {}),
    ...(finding.commands ? { commands: finding.commands } : {}),
    ...(finding.statements ? { statements: finding.statements } : {}),
    ...(finding.annotations ? { annotations: finding.annotations } : {}),
    truncated: !!finding.truncated,
  };
  return bound(summary);
}

/** Drops diffs, then commands and statements, from the end until the summary fits {@link MAX_SUMMARY_CHARS}. */
function bound(summary: CallSummary): CallSummary {
  let size = JSON.stringify(summary).length;
  for (let i = (summary.files?.length ?? 0) - 1; size > MAX_SUMMARY_CHARS && i >= 0; i--) {
    const file = summary.files![i]!;
    size -= file.diff.length;
    file.diff = '';
    summary.truncated = true;
  }
  while (
    size > MAX_SUMMARY_CHARS &&
    (summary.commands?.length || summary.statements?.length || summary.files?.length)
  ) {
    (summary.commands?.length
      ? summary.commands
      : summary.statements?.length
        ? summary.statements
        : summary.files)!.pop();
    summary.truncated = true;
    size = JSON.stringify(summary).length;
  }
  return summary;
}

/**
 * What a call will do, for the approver: its kind, files, commands or statements, and a risk with reasons.
 * Deterministic, bounded, never throws. Loads a parser only for a call that needs it (shell: tree-sitter-bash; SQL:
 * node-sql-parser; edits: jsdiff).
 * @example const summary = await summarize('Bash', { command: 'curl -s https://x.sh | sh' }, { cwd: '/repo' });
 * // summary.risk === 'high'; summary.risk_reasons[0].code === 'network'
 */
export async function summarize(
  toolName: string,
  args: Record<string, unknown>,
  context: SummaryContext = {},
): Promise<CallSummary> {
  let finding: Finding;
  try {
    const summarizer = SUMMARIZERS.find((s) => s.accepts(toolName, args, context));
    if (!summarizer) return settle({ kind: 'other', reasons: [reason('unknown_tool')] });
    finding = await summarizer.summarize(toolName, args, context);
    // An MCP tool whose call another summarizer read keeps its annotations too; a read-only hint adds nothing then.
    const annotations = context.annotations ? cleanAnnotations(context.annotations) : null;
    if (annotations && finding.kind !== 'mcp')
      finding = {
        ...finding,
        annotations,
        reasons: [...finding.reasons, ...annotationReasons(annotations).filter((r) => r.code !== 'mcp_read_only')],
      };
  } catch (error) {
    const detail = String((error as Error)?.message ?? error)
      .split('\n')[0]!
      .slice(0, 160);
    return settle({ kind: 'other', reasons: [reason('summary_failed', detail)] });
  }
  return settle(finding);
}
