/**
 * @module summaries/edit
 * The edit summarizer: every coding agent's edit tools (see {@link readEditCall}) as per-file unified diffs with
 * `+N −M` counts, new and deleted files, and paths outside the working directory or holding secrets named.
 */
import { diffText } from './diff-text.js';
import { readEditCall, type EditCall } from './edit-shapes.js';
import { displayPath, isOutsideCwd, isSecretPath } from './paths.js';
import { MAX_FILES, readPatch, type PatchFile } from './patch-reader.js';
import { reason } from './reasons.js';
import type { FileChange, Finding, Summarizer, SummaryContext } from './types.js';

/** Intents of one path merged (a MultiEdit's edits), in the order the call gave them. */
async function filesOfIntents(call: EditCall): Promise<{ files: PatchFile[]; truncated: boolean }> {
  const byPath = new Map<string, PatchFile>();
  let truncated = false;
  for (const intent of call.intents) {
    const diff = await diffText(intent.before, intent.after);
    const file = byPath.get(intent.path);
    if (file) {
      file.added += diff.added;
      file.removed += diff.removed;
      file.diff = file.diff && diff.text ? `${file.diff}\n${diff.text}` : file.diff || diff.text;
      file.truncated ||= diff.truncated;
    } else if (byPath.size < MAX_FILES) {
      byPath.set(intent.path, {
        path: intent.path,
        status: intent.status,
        added: diff.added,
        removed: diff.removed,
        diff: diff.text,
        truncated: diff.truncated,
      });
    } else truncated = true;
  }
  return { files: [...byPath.values()], truncated };
}

/** The risk reasons of the changed files, one per code, naming the first files. */
function fileReasons(files: FileChange[]): Finding['reasons'] {
  const named = (list: FileChange[]) =>
    list
      .slice(0, 3)
      .map((f) => f.path)
      .join(', ') + (list.length > 3 ? ` and ${list.length - 3} more` : '');
  const reasons: Finding['reasons'] = [];
  const outside = files.filter((f) => f.outside_cwd);
  const secret = files.filter((f) => isSecretPath(f.path));
  const deleted = files.filter((f) => f.status === 'deleted');
  if (outside.length) reasons.push(reason('path_outside_cwd', named(outside)));
  if (secret.length) reasons.push(reason('secret_file', named(secret)));
  if (deleted.length) reasons.push(reason('file_deleted', named(deleted)));
  return reasons;
}

/** The edit summarizer. */
export const editSummarizer: Summarizer = {
  kind: 'edit',
  accepts: (toolName, args) => readEditCall(toolName, args) !== null,
  async summarize(toolName: string, args: Record<string, unknown>, context: SummaryContext): Promise<Finding> {
    const call = readEditCall(toolName, args);
    if (!call) return { kind: 'edit', reasons: [reason('patch_unparsed')] };
    let read: { files: PatchFile[]; truncated: boolean };
    if (call.patch !== undefined) {
      try {
        read = readPatch(call.patch);
      } catch (error) {
        return { kind: 'edit', reasons: [reason('patch_unparsed', (error as Error).message)] };
      }
    } else read = await filesOfIntents(call);
    const files: FileChange[] = read.files.map(({ truncated: _cut, ...f }) => ({
      ...f,
      path: displayPath(f.path, context.cwd),
      outside_cwd: isOutsideCwd(f.path, context.cwd),
    }));
    return {
      kind: 'edit',
      files,
      reasons: fileReasons(files),
      truncated: read.truncated || read.files.some((f) => f.truncated),
    };
  },
};
