/**
 * @module cli/line-diff
 * A line diff for people to read (`tollgate init` shows what it changes): unchanged lines with two spaces, removed
 * ones with `- `, added ones with `+ `, the longest common subsequence kept. Configuration files are small; the
 * quadratic table is fine up to the limit, past which the whole old and new text are shown.
 */

/** Lines of each side above which no table is built. */
const MAX_LINES = 2000;

/** The diff of `before` and `after`, one line per line, ending with a newline. */
export function lineDiff(before: string, after: string): string {
  const a = before ? before.replace(/\n$/, '').split('\n') : [];
  const b = after ? after.replace(/\n$/, '').split('\n') : [];
  if (a.length > MAX_LINES || b.length > MAX_LINES)
    return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)].join('\n') + '\n';
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return `${out.join('\n')}\n`;
}
