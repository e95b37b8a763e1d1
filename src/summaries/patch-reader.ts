/**
 * @module summaries/patch-reader
 * Reads a patch an agent sends: Codex's `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`), or a unified
 * diff (OpenCode's `patch`, a `git diff`), into file changes with their own hunks as the diff text.
 */
import { boundDiff, maskDiffLines } from './diff-text.js';
import type { FileChange } from './types.js';

/** A file change before `outside_cwd` is settled. */
export type PatchFile = Omit<FileChange, 'outside_cwd'> & { truncated: boolean };

/** Files a patch touches at most; beyond it the summary says it was cut. */
export const MAX_FILES = 50;

function finish(path: string, status: FileChange['status'], lines: string[]): PatchFile {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  const bounded = boundDiff(maskDiffLines(lines));
  return { path, status, added, removed, diff: bounded.text, truncated: bounded.truncated };
}

/** Reads Codex's `apply_patch` envelope. Throws when it is not one. */
function readEnvelope(text: string): PatchFile[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((l) => l.trim() === '*** Begin Patch');
  if (start < 0) throw new Error('no "*** Begin Patch" line');
  const files: PatchFile[] = [];
  let current: { path: string; status: FileChange['status']; lines: string[] } | null = null;
  const flush = () => {
    if (current) files.push(finish(current.path, current.status, current.lines));
    current = null;
  };
  for (const line of lines.slice(start + 1)) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      flush();
      const status = header[1] === 'Add' ? 'added' : header[1] === 'Delete' ? 'deleted' : 'modified';
      current = { path: header[2]!.trim(), status, lines: [] };
      continue;
    }
    if (line.trim() === '*** End Patch') break;
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move && current) {
      current.path = `${current.path} → ${move[1]!.trim()}`;
      continue;
    }
    if (line === '*** End of File') continue;
    if (current) current.lines.push(line);
  }
  flush();
  if (!files.length) throw new Error('the patch names no file');
  return files;
}

/** Reads a unified diff (`--- a/x` / `+++ b/x` headers, `@@` hunks). */
function readUnified(text: string): PatchFile[] {
  const files: PatchFile[] = [];
  let current: { path: string; status: FileChange['status']; lines: string[]; from: string } | null = null;
  const flush = () => {
    if (current) files.push(finish(current.path, current.status, current.lines));
    current = null;
  };
  const strip = (p: string) => p.replace(/\t.*$/, '').replace(/^[ab]\//, '');
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      flush();
      const from = strip(line.slice(4));
      const to = strip(lines[i + 1]!.slice(4));
      const status = from === '/dev/null' ? 'added' : to === '/dev/null' ? 'deleted' : 'modified';
      current = { path: status === 'deleted' ? from : to, status, lines: [], from };
      i++;
      continue;
    }
    if (line.startsWith('diff --git ')) {
      flush();
      continue;
    }
    if (current && /^[-+ @\\]/.test(line)) current.lines.push(line);
  }
  flush();
  if (!files.length) throw new Error('the diff names no file');
  return files;
}

/**
 * Reads a patch into its files, at most {@link MAX_FILES}.
 * @throws Error when the text is neither an `apply_patch` envelope nor a unified diff naming a file.
 */
export function readPatch(text: string): { files: PatchFile[]; truncated: boolean } {
  const files = /^\s*\*\*\* Begin Patch/.test(text) ? readEnvelope(text) : readUnified(text);
  return { files: files.slice(0, MAX_FILES), truncated: files.length > MAX_FILES };
}
