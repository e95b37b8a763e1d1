/**
 * @module cli/contained-files
 * How `tollgate init` reads and writes an agent's configuration when the project is untrusted input (a checkout can
 * hold symbolic links): only regular files inside a root directory (the project, or the user's configuration
 * directory for `--scope user`), never through a link. A link anywhere below the root (a linked `.codex`, a linked
 * `hooks.json`, a dangling `PreToolUse`, a planted `.bak`) is refused with an error naming it, so init can neither
 * merge into a file elsewhere nor create an executable outside.
 *
 * @remarks Races: each directory below the root is checked with `lstat` (and created one level at a time, so a link
 * put there meanwhile makes `mkdir` fail), the resolved path of the directory is compared with the path checked just
 * before writing, the file is read with `O_NOFOLLOW`, and written as a new file (`O_CREAT | O_EXCL | O_NOFOLLOW`)
 * renamed over the target: `rename` replaces a link, never follows it. What Node cannot do (`openat`-style writes
 * relative to a held directory) leaves a window between the last check and the rename in which a process already
 * running as the same user could swap a directory; that process could write the file itself.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/** A path init will not read or write: a link, something other than a regular file, or outside the root. */
export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function linkError(path: string, root: string): UnsafePathError {
  return new UnsafePathError(
    `${path} is a symbolic link: tollgate init writes only regular files inside ${root}, never through a link. ` +
      'Remove the link (or check where it came from) and run init again.',
  );
}

/** The directories from `root` (excluded) down to `file`'s parent, in order; throws when `file` is not inside. */
function dirsBelow(root: string, file: string): string[] {
  const rel = relative(root, file);
  if (!rel || rel.startsWith('..') || isAbsolute(rel))
    throw new UnsafePathError(`${file} is not inside ${root}: tollgate init writes only there`);
  const parts = rel.split(sep).slice(0, -1);
  return parts.map((_, i) => join(root, ...parts.slice(0, i + 1)));
}

/**
 * Makes sure every directory between `root` and `file` is a real directory (creating the missing ones) and `file`
 * itself is absent or a regular file with one name. Throws {@link UnsafePathError} naming the first that is not.
 */
export function checkContained(root: string, file: string, create: boolean): void {
  for (const dir of dirsBelow(root, file)) {
    let stat = lstatOrNull(dir);
    if (stat === null && create) {
      try {
        mkdirSync(dir, { mode: 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      stat = lstatSync(dir);
    }
    if (stat === null) return;
    if (stat.isSymbolicLink()) throw linkError(dir, root);
    if (!stat.isDirectory()) throw new UnsafePathError(`${dir} is not a directory`);
  }
  const stat = lstatOrNull(file);
  if (stat?.isSymbolicLink()) throw linkError(file, root);
  if (stat && !stat.isFile()) throw new UnsafePathError(`${file} is not a regular file`);
  if (stat && stat.nlink > 1)
    throw new UnsafePathError(`${file} has other names (a hard link): tollgate init will not write through it`);
}

/** Reads `file` (a regular file inside `root`, never through a link), or null when there is none. */
export function readContained(root: string, file: string): string | null {
  checkContained(root, file, false);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw linkError(file, root);
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UnsafePathError(`${file} is not a regular file`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` to `file` inside `root` as a new regular file renamed over the old one (mode 0755 when `executable`),
 * creating the directories between. Never follows a link; throws {@link UnsafePathError} naming one.
 */
export function writeContained(root: string, file: string, text: string, executable = false): void {
  mkdirSync(root, { recursive: true }); // the root is the user's choice (--dir, CODEX_HOME): made as asked
  checkContained(root, file, true);
  const existing = lstatOrNull(file);
  const mode = (existing ? existing.mode & 0o777 : 0o644) | (executable ? 0o755 : 0);
  const dir = dirname(file);
  // The directory resolves where it was checked to be: nothing was swapped for a link since.
  if (realpathSync(dir) !== join(realpathSync(root), relative(root, dir)))
    throw new UnsafePathError(`${dir} changed while tollgate init was writing: nothing was written`);
  const temp = join(dir, `.${randomBytes(6).toString('hex')}.tollgate-init`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
  try {
    writeSync(fd, text);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  if (executable) chmodSync(temp, mode); // the umask may have taken the execute bits
  renameSync(temp, file);
}
