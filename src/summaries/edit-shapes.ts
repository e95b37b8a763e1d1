/**
 * @module summaries/edit-shapes
 * Every coding agent's edit tools, read into one shape: a file, its text before and after (the fragment the tool
 * replaces, when that is all the call says), or a patch to read. Shapes are recognised by argument names, so a tool
 * renamed between releases still reads.
 */

/** One file change as a tool states it. */
export interface EditIntent {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before: string;
  after: string;
}

/** What an edit call says: file changes, or a patch in text. */
export interface EditCall {
  intents: EditIntent[];
  /** A Codex `apply_patch` envelope or a unified diff, to be read by the patch reader. */
  patch?: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const pick = (args: Record<string, unknown>, names: readonly string[]): string | null => {
  for (const name of names) {
    const value = str(args[name]);
    if (value !== null) return value;
  }
  return null;
};

const PATH = ['file_path', 'filePath', 'path', 'target_file', 'notebook_path', 'absolute_path', 'file', 'filename'];
const OLD = ['old_string', 'oldString', 'old_str', 'old_text', 'oldText', 'search'];
const NEW = ['new_string', 'newString', 'new_str', 'new_text', 'newText', 'replace'];
const CONTENT = ['content', 'contents', 'file_text', 'fileText', 'text', 'code_edit', 'new_source'];
const PATCH = ['input', 'patch', 'patchText', 'patch_text', 'diff'];

/** Tool names that delete a file. */
const DELETE_TOOL = /^(delete_file|delete|remove_file|rm_file)$/i;
/** Tool names that write a whole file. */
const WRITE_TOOL =
  /^(write|write_file|write_to_file|create|create_file|notebookedit|edit_file|writefile|str_replace_editor|str_replace_based_edit_tool|edit|replace|multiedit|search_replace|replace_in_file|apply_patch|patch|applypatch)$/i;

/** True when a patch text is a Codex `apply_patch` envelope or a unified diff. */
export function looksLikePatch(text: string): boolean {
  return /^\s*\*\*\* Begin Patch/.test(text) || /^(diff --git |--- \S)/m.test(text.slice(0, 4000));
}

/**
 * Codex's apply_patch sent through its shell tool, which Codex intercepts and applies itself:
 * `apply_patch <<'EOF'\n*** Begin Patch…\nEOF`. Only the whole command: anything after the heredoc's end is a shell
 * command, so such a call stays a shell call (a patch must not hide it).
 */
const SHELL_APPLY_PATCH = /^\s*apply_patch\s+<<-?\s*(['"]?)(\w+)\1[ \t]*\r?\n([\s\S]*?\r?\n)\2[ \t]*(?:\r?\n)?\s*$/;

/** Cline's `replace_in_file` SEARCH/REPLACE blocks, old (`<<<<<<< SEARCH`) and new (`------- SEARCH`) markers. */
function clineBlocks(diff: string): { before: string; after: string }[] {
  const blocks: { before: string; after: string }[] = [];
  const re = /(?:<{7}|-{7}) SEARCH\r?\n([\s\S]*?)\r?\n?={7}\r?\n([\s\S]*?)\r?\n?(?:>{7}|\+{7}) REPLACE/g;
  for (let m = re.exec(diff); m; m = re.exec(diff)) blocks.push({ before: m[1] ?? '', after: m[2] ?? '' });
  return blocks;
}

/**
 * Reads an edit call, or returns null when the call is not an edit.
 * @example readEditCall('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' })
 */
export function readEditCall(toolName: string, args: Record<string, unknown>): EditCall | null {
  const tool = toolName.replace(/^mcp__[^_]+__/, '');
  const path = pick(args, PATH);
  const patchText = pick(args, PATCH);
  if (patchText && looksLikePatch(patchText)) return { intents: [], patch: patchText };
  // Codex's apply_patch through the shell tool: `{command: ["apply_patch", "*** Begin Patch…"]}`.
  if (Array.isArray(args.command) && args.command[0] === 'apply_patch' && typeof args.command[1] === 'string')
    return { intents: [], patch: args.command[1] };
  const heredoc = typeof args.command === 'string' ? SHELL_APPLY_PATCH.exec(args.command) : null;
  if (heredoc?.[3] && looksLikePatch(heredoc[3])) return { intents: [], patch: heredoc[3] };
  if (!path) return null;
  if (DELETE_TOOL.test(tool)) return { intents: [{ path, status: 'deleted', before: '', after: '' }] };
  // Claude Code's NotebookEdit: a cell's new source, replaced, inserted or deleted.
  if (typeof args.notebook_path === 'string') {
    const source = str(args.new_source) ?? '';
    const mode = str(args.edit_mode) ?? 'replace';
    return {
      intents: [
        {
          path: `${path}${typeof args.cell_id === 'string' ? ` (cell ${args.cell_id})` : ''}`,
          status: 'modified',
          before: mode === 'delete' ? source : '',
          after: mode === 'delete' ? '' : source,
        },
      ],
    };
  }
  if (Array.isArray(args.edits)) {
    const intents = args.edits.flatMap((e): EditIntent[] => {
      if (!e || typeof e !== 'object') return [];
      const edit = e as Record<string, unknown>;
      const before = pick(edit, OLD);
      const after = pick(edit, NEW);
      return before !== null || after !== null
        ? [{ path, status: 'modified', before: before ?? '', after: after ?? '' }]
        : [];
    });
    if (intents.length) return { intents };
  }
  const before = pick(args, OLD);
  const after = pick(args, NEW);
  if (before !== null && after !== null) return { intents: [{ path, status: 'modified', before, after }] };
  if (typeof args.diff === 'string') {
    const blocks = clineBlocks(args.diff);
    if (blocks.length) return { intents: blocks.map((b) => ({ path, status: 'modified', ...b })) };
  }
  // Copilot's str_replace_editor `insert` and Cline 3.0's `editor` with `insert_line`: new text at a line.
  if (after !== null && (args.command === 'insert' || (args.insert_line !== undefined && args.insert_line !== null)))
    return { intents: [{ path, status: 'modified', before: '', after }] };
  // Cline 3.0's `editor` without `old_text`: `new_text` is the content of a file it creates.
  if (after !== null && /^editor$/i.test(tool)) return { intents: [{ path, status: 'added', before: '', after }] };
  const content = pick(args, CONTENT);
  if (content !== null && WRITE_TOOL.test(tool))
    return { intents: [{ path, status: 'added', before: '', after: content }] };
  return null;
}
