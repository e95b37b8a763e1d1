/**
 * @module channel/card-summary
 * How a card words a request's call summary (`src/summaries/`): the risk and its reasons, one headline, a line per
 * file, program, statement or annotation, and the first lines of the diffs. Channels lay these lines out; none of them
 * reads a summary's fields on its own. Text in a summary comes from the call (paths, hosts, arguments): the channels
 * escape it for their medium like any other card text. The words around the values are English unless a channel hands
 * in its own ({@link SummaryWords}).
 */
import { maskSecretsInLine } from '../utils/json-view.js';
import type { CallSummary, FileChange, Risk } from '../summaries/types.js';
import { ENGLISH_SUMMARY_WORDS, type SummaryWords } from './summary-words.js';

export { ENGLISH_SUMMARY_WORDS, type HintWords, type SummaryWords } from './summary-words.js';

/** A summary as a card shows it, already worded and cut. */
export interface SummaryView {
  risk: Risk;
  /**
   * True when the summary reads what the call does (an edit, a shell command, SQL): cards may then fold the raw
   * arguments away. False for an MCP tool's hints or an unknown tool, whose arguments stay the best description.
   */
  readsCall: boolean;
  /** `High risk`, `Medium risk`, `Low risk`. */
  riskLabel: string;
  /** The reasons' sentences, in the summary's order. */
  reasons: string[];
  /** The label and the reasons in one line: `High risk: Reaches the network: x.sh; Runs code fetched from the network: sh`. */
  riskLine: string;
  /** One line: `Changes 3 files: +12 −4`, `Runs curl, sudo, bash`, `1 SQL statement: delete`; empty when none fits. */
  headline: string;
  /** One line per file, program, statement or annotation, at most {@link SummaryLimits.maxItems}. */
  items: string[];
  /** Items left out of {@link items}. */
  moreItems: number;
  /** `… and 3 more` when items were left out, else empty. */
  moreLine: string;
  /** The first lines of the diffs, each file's opened by `--- path`; empty when the call edits nothing. */
  diffLines: string[];
  /** True when the diffs go on past {@link diffLines} (or the summary itself was cut when filed). */
  diffMore: boolean;
}

/** How much of a summary a card shows. */
export interface SummaryLimits {
  maxItems?: number;
  maxDiffLines?: number;
  /** Characters of one line at most. */
  maxLineChars?: number;
}

function cut(text: string, max: number): string {
  const line = maskSecretsInLine(text.replace(/[\r\n\t]+/g, ' '));
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function fileLine(file: FileChange, words: SummaryWords): string {
  const notes = [
    file.status === 'added' ? words.newFile : file.status === 'deleted' ? words.deletedFile : '',
    file.outside_cwd ? words.outsideCwd : '',
  ].filter(Boolean);
  return `${file.path}  +${file.added} −${file.removed}${notes.length ? ` (${notes.join(words.listSeparator)})` : ''}`;
}

function headline(summary: CallSummary, words: SummaryWords): string {
  const unique = (list: string[]) => [...new Set(list)].join(words.listSeparator);
  if (summary.files?.length) {
    const added = summary.files.reduce((n, f) => n + f.added, 0);
    const removed = summary.files.reduce((n, f) => n + f.removed, 0);
    return words.changes(summary.files.length, added, removed);
  }
  if (summary.commands?.length) return words.runs(unique(summary.commands.map((c) => c.program)));
  if (summary.statements?.length)
    return words.statements(summary.statements.length, unique(summary.statements.map((s) => s.kind)));
  if (summary.annotations) return words.mcpTool;
  return '';
}

function items(summary: CallSummary, max: number, words: SummaryWords): string[] {
  // A flagged item ends in `]`: {@link shown} keeps those first.
  const flagged = (text: string, flags: readonly string[]) =>
    flags.length ? `${text}  [${flags.map(words.flag).join(words.listSeparator)}]` : text;
  const lines = [
    ...(summary.files ?? []).map((f) => fileLine(f, words)),
    ...(summary.commands ?? []).map((c) => flagged([c.program, ...c.args].join(' '), c.flags)),
    ...(summary.statements ?? []).map((s) =>
      flagged(`${s.kind.toUpperCase()}${s.tables.length ? ` ${s.tables.join(', ')}` : ''}`, s.flags),
    ),
  ];
  const hints = summary.annotations;
  if (hints) {
    const w = words.hints;
    const word = (value: boolean | undefined) => (value === undefined ? w.notSaid : value ? w.yes : w.no);
    const pairs: [string, boolean | undefined][] = [
      [w.readOnly, hints.readOnlyHint],
      [w.destructive, hints.destructiveHint],
      [w.idempotent, hints.idempotentHint],
      [w.openWorld, hints.openWorldHint],
    ];
    lines.push(pairs.map(([name, value]) => `${name}${words.colon}${word(value)}`).join(' · '));
  }
  return lines.slice(0, Math.max(0, max)).map((l) => cut(l, 400));
}

/** The first lines of each file's diff, the room shared out so the second file is not hidden behind a long first. */
function diffLines(files: readonly FileChange[], max: number, maxChars: number): { lines: string[]; more: boolean } {
  const shown = files.filter((f) => f.diff);
  const each = Math.max(2, Math.floor(max / Math.max(1, shown.length)) - 1);
  const lines: string[] = [];
  let more = false;
  for (const file of shown) {
    if (lines.length + 2 > max) return { lines, more: true };
    const body = file.diff.split('\n');
    const room = Math.min(each, max - lines.length - 1);
    lines.push(cut(`--- ${file.path}`, maxChars), ...body.slice(0, room).map((l) => cut(l, maxChars)));
    if (body.length > room) more = true;
  }
  return { lines, more };
}

/**
 * The first `max` items, but when some must be left out, the flagged ones (`[…]`) go first, in their order: a card
 * that shows three of four programs shows the force push, not the harmless `bash`.
 */
function shown(all: readonly string[], max: number): string[] {
  if (all.length <= max) return [...all];
  const flagged = all.filter((l) => l.endsWith(']'));
  const kept = new Set([...flagged, ...all].slice(0, max));
  return all.filter((l) => kept.has(l)).slice(0, max);
}

/**
 * The card's view of `summary`, worded with `words` (English unless a channel speaks another language).
 * @example summaryView(summary).headline // 'Changes 2 files: +14 −3'
 */
export function summaryView(
  summary: CallSummary,
  limits: SummaryLimits = {},
  words: SummaryWords = ENGLISH_SUMMARY_WORDS,
): SummaryView {
  const { maxItems = 6, maxDiffLines = 12, maxLineChars = 160 } = limits;
  const all = items(summary, 1000, words);
  const diff = diffLines(summary.files ?? [], maxDiffLines, maxLineChars);
  const riskLabel = words.risk[summary.risk];
  const reasons = summary.risk_reasons.map((r) => cut(words.reason(r), 300));
  const moreItems = Math.max(0, all.length - maxItems);
  return {
    risk: summary.risk,
    readsCall: summary.kind === 'edit' || summary.kind === 'shell' || summary.kind === 'sql',
    riskLabel,
    reasons,
    riskLine: reasons.length ? `${riskLabel}${words.colon}${reasons.join(words.reasonSeparator)}` : riskLabel,
    headline: cut(headline(summary, words), maxLineChars),
    items: shown(all, maxItems).map((l) => cut(l, maxLineChars)),
    moreItems,
    moreLine: moreItems ? words.more(moreItems) : '',
    diffLines: diff.lines,
    diffMore: diff.more || summary.truncated,
  };
}

/**
 * The view as plain lines, for a text medium (a mail's text part, a notification, a terminal): the risk with its
 * reasons, the headline, the items as a list. The diff lines are left to the caller, which knows whether it has room.
 * @example summaryLines(view) // ['High risk: Reaches the network: x.sh; Runs code fetched from the network: sh', 'Runs curl, sh', '• curl -s https://x.sh  [network]', …]
 */
export function summaryLines(view: SummaryView): string[] {
  return [
    view.riskLine,
    ...(view.headline ? [view.headline] : []),
    ...view.items.map((item) => `• ${item}`),
    ...(view.moreLine ? [`• ${view.moreLine}`] : []),
  ];
}
