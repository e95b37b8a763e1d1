/**
 * @module summaries/paths
 * Where a path points, read as text only (the gateway may not run on the agent's machine): outside the working
 * directory, or at a file that holds secrets.
 */
import { posix } from 'node:path';

/** Paths that hold secrets: env files, SSH keys, cloud and registry credentials, the shadow file. */
const SECRET_PATH =
  /(^|\/)(\.env(\.(?!example$|sample$|template$|dist$)[\w-]+)?$|\.ssh(\/|$)|id_(rsa|dsa|ecdsa|ed25519)|\.aws\/credentials|\.aws\/config|\.config\/gcloud|\.azure\/|\.kube\/config|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.docker\/config\.json|\.git-credentials|shadow$|gshadow$|.*\.pem$|.*\.key$)/;

/** Files anyone may write to, not counted as writes outside the working directory. */
const HARMLESS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** True when `path` names a file that usually holds secrets (`.env`, `~/.ssh/…`, `~/.aws/credentials`). */
export function isSecretPath(path: string): boolean {
  return SECRET_PATH.test(path.replace(/\\/g, '/'));
}

/**
 * True when `path` leaves `cwd`: an absolute path not under it, a `~` path, or `..` that climbs out. With no `cwd`,
 * only `~` and a relative path that climbs out count (an absolute path cannot be judged).
 */
export function isOutsideCwd(path: string, cwd: string | null | undefined): boolean {
  const p = path.replace(/\\/g, '/').trim();
  if (!p || HARMLESS.has(p)) return false;
  if (p === '~' || p.startsWith('~/') || /^~\w/.test(p)) return true;
  if (p.startsWith('$HOME') || p.startsWith('${HOME}')) return true;
  if (p.startsWith('/')) {
    if (!cwd) return false;
    const base = posix.normalize(cwd.replace(/\\/g, '/')).replace(/\/+$/, '');
    const full = posix.normalize(p);
    return !(full === base || full.startsWith(`${base}/`));
  }
  return posix.normalize(p).startsWith('../') || posix.normalize(p) === '..';
}

/** `path` relative to `cwd` when it sits under it, else as given: shorter on a card. */
export function displayPath(path: string, cwd: string | null | undefined): string {
  if (!cwd || !path.startsWith('/')) return path;
  const base = cwd.replace(/\/+$/, '');
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}
