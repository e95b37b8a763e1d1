/**
 * @module summaries/diff-text
 * Unified diff text for a summary: made with jsdiff (loaded on the first edit), secrets masked line by line, cut to a
 * bound. A private key block is masked whole, from its BEGIN line to its END line.
 */
import type * as JsdiffModule from 'diff';
import { maskSecretsInLine } from '../utils/json-view.js';

/** Characters of diff kept per file; the counts stay exact beyond it. */
export const MAX_DIFF_CHARS = 8_000;
/** Characters of one side of an edit given to the differ; beyond it only counts are given. */
const MAX_SIDE_CHARS = 256_000;
/** Milliseconds the differ may spend on one edit before it gives up (jsdiff's own `timeout`). */
const DIFF_TIMEOUT_MS = 50;

type Jsdiff = typeof JsdiffModule;
let jsdiff: Promise<Jsdiff> | undefined;
const loadJsdiff = (): Promise<Jsdiff> => (jsdiff ??= import('diff'));

/** One file's diff: its hunks as text and its counts. */
export interface DiffText {
  text: string;
  added: number;
  removed: number;
  truncated: boolean;
}

/** Masks secrets in diff lines (`+`, `-`, ` ` prefixed, or headers), private key blocks whole. */
export function maskDiffLines(lines: readonly string[]): string[] {
  let inKey = false;
  return lines.map((line) => {
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(line)) inKey = true;
    if (inKey) {
      if (/-----END [A-Z ]*PRIVATE KEY-----/.test(line)) inKey = false;
      return `${line.slice(0, 1)}••••`;
    }
    return maskSecretsInLine(line);
  });
}

/** Joins diff lines into at most {@link MAX_DIFF_CHARS} characters, whole lines only. */
export function boundDiff(lines: readonly string[]): { text: string; truncated: boolean } {
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    const cut = line.length > 400 ? `${line.slice(0, 399)}…` : line;
    if (size + cut.length + 1 > MAX_DIFF_CHARS) return { text: kept.join('\n'), truncated: true };
    kept.push(cut);
    size += cut.length + 1;
  }
  return { text: kept.join('\n'), truncated: false };
}

const lineCount = (text: string): number => (text ? text.replace(/\n$/, '').split('\n').length : 0);

/**
 * The diff of `before` → `after` (whole files or the fragments an edit replaces), masked and bounded.
 * @example await diffText('a\n', 'b\n') // { text: '@@ -1,1 +1,1 @@\n-a\n+b', added: 1, removed: 1, truncated: false }
 */
export async function diffText(before: string, after: string): Promise<DiffText> {
  if (before.length > MAX_SIDE_CHARS || after.length > MAX_SIDE_CHARS)
    return { text: '', added: lineCount(after), removed: lineCount(before), truncated: true };
  const { structuredPatch } = await loadJsdiff();
  const withNewline = (s: string) => (s && !s.endsWith('\n') ? `${s}\n` : s);
  const patch = structuredPatch('a', 'b', withNewline(before), withNewline(after), '', '', {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return { text: '', added: lineCount(after), removed: lineCount(before), truncated: true };
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue;
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
      lines.push(line);
    }
  }
  const bounded = boundDiff(maskDiffLines(lines));
  return { text: bounded.text, added, removed, truncated: bounded.truncated };
}
