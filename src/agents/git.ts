/**
 * @module agents/git
 * The git repository and branch of a working directory, read from `.git` itself (no `git` process: the hook runs
 * per tool call, and spawning git would cost more than the rest of it). Handles a worktree or submodule, whose
 * `.git` is a file naming the real git directory (`gitdir: …`, with `commondir` holding the config).
 *
 * The repository is `owner/name` from the `origin` remote's URL (`git@github.com:acme/billing.git`,
 * `https://github.com/acme/billing`), else the working tree's directory name; the branch is HEAD's, or the
 * commit's first 12 hex digits when HEAD is detached. Anything unreadable is null: the call is gated all the same.
 *
 * The checkout may be hostile (the agent works in whatever it cloned): only regular files are read, and at most
 * {@link MAX_READ} bytes of each, so a `.git/HEAD` that is a link to `/dev/zero` or a fifo neither stalls nor crashes
 * the hook — which most agents would answer by running the call.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** How far up from the working directory `.git` is looked for. */
const MAX_DEPTH = 64;
/** The most read of any file under `.git` (a config with many remotes is a few KB). */
const MAX_READ = 64 * 1024;

/** What the hook records of the repository. */
export interface GitPlace {
  repo: string | null;
  branch: string | null;
}

/** The first {@link MAX_READ} bytes of a regular file, or null (absent, unreadable, a device, a fifo, a directory). */
function read(path: string): string | null {
  let fd: number;
  try {
    // O_NONBLOCK: opening a fifo must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(MAX_READ);
    const size = readSync(fd, buffer, 0, MAX_READ, 0);
    return buffer.subarray(0, size).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The working tree root and git directory containing `cwd`, or null. */
function findGitDir(cwd: string): { root: string; gitDir: string; commonDir: string } | null {
  let dir = resolve(cwd);
  for (let i = 0; i < MAX_DEPTH; i++) {
    const dotGit = join(dir, '.git');
    let isDir: boolean | null = null;
    try {
      isDir = statSync(dotGit).isDirectory();
    } catch {
      isDir = null;
    }
    if (isDir === true) return { root: dir, gitDir: dotGit, commonDir: dotGit };
    if (isDir === false) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(read(dotGit) ?? '')?.[1];
      if (!pointer) return null;
      const gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
      const common = read(join(gitDir, 'commondir'))?.trim();
      return { root: dir, gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** `owner/name` of a remote URL (the last two path segments, `.git` dropped), or null. */
export function repoOfUrl(url: string): string | null {
  const path = url
    .trim()
    .replace(/\.git\/?$/, '')
    .replace(/\/+$/, '');
  const parts = path.split(/[/:]/).filter(Boolean);
  if (parts.length < 2) return null;
  return `${parts.at(-2)}/${parts.at(-1)}`;
}

/** The `url` of `[remote "origin"]` in a git config's text, or null. */
function originUrl(config: string): string | null {
  let inOrigin = false;
  for (const line of config.split('\n')) {
    const section = /^\s*\[([^\]]+)\]/.exec(line);
    if (section) {
      inOrigin = /^remote\s+"origin"$/.test(section[1]!.trim());
      continue;
    }
    const url = inOrigin ? /^\s*url\s*=\s*(.+?)\s*$/.exec(line) : null;
    if (url) return url[1]!;
  }
  return null;
}

/** The repository and branch of `cwd` (both null outside a repository, or where `.git` cannot be read). */
export function gitPlace(cwd: string | null): GitPlace {
  if (!cwd) return { repo: null, branch: null };
  try {
    return readPlace(cwd);
  } catch {
    return { repo: null, branch: null };
  }
}

function readPlace(cwd: string): GitPlace {
  const found = findGitDir(cwd);
  if (!found) return { repo: null, branch: null };
  const head = read(join(found.gitDir, 'HEAD'))?.trim() ?? '';
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1];
  const branch = ref ?? (/^[0-9a-f]{40,64}$/.test(head) ? head.slice(0, 12) : null);
  const url = originUrl(read(join(found.commonDir, 'config')) ?? '');
  return { repo: (url && repoOfUrl(url)) ?? basename(found.root), branch };
}
