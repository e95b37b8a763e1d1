/**
 * The real coding-agent CLIs the tests in test/agents run: a pinned version of each, installed from the npm registry
 * into a cache directory on first use (`~/.cache/tollgate/agents/<package>@<version>`, or `TOLLGATE_AGENT_CACHE`) —
 * never a dependency of the package. A lock directory keeps two test files from installing the same one at once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the CLIs are installed. */
export const AGENT_CACHE = process.env.TOLLGATE_AGENT_CACHE ?? join(homedir(), '.cache/tollgate/agents');

/** Installs `pkg@version` into the cache unless it is there; resolves with the path of its `bin`. */
export async function installedCli(pkg: string, version: string, bin: string): Promise<string> {
  const dir = join(AGENT_CACHE, `${pkg.replace('/', '+')}@${version}`);
  const path = join(dir, 'node_modules/.bin', bin);
  const lock = `${dir}.lock`;
  mkdirSync(AGENT_CACHE, { recursive: true });
  for (;;) {
    if (existsSync(path)) return path;
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500)); // another test file is installing it
      continue;
    }
    try {
      if (!existsSync(path)) {
        execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${pkg}@${version}`], { stdio: 'inherit' });
      }
    } finally {
      rmdirSync(lock);
    }
  }
}
