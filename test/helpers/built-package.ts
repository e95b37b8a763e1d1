/**
 * The package as users import it: `dist/`, built by `npm install` (the `prepare` script). Tests that import
 * `tollgate` by name call {@link ensureBuilt} first, which rebuilds when a source file is newer than the build, so a
 * stale `dist/` is never what gets tested. A lock directory keeps test files running in parallel from building twice.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/** The repository root (the package). */
export const ROOT = resolve(import.meta.dirname, '../..');
const MARKER = join(ROOT, 'dist/src/index.js');
const LOCK = join(ROOT, 'dist/.build-lock');

/** The newest modification time (ms) of a `.ts` file under `dir`. */
export function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(
      newest,
      entry.isDirectory() ? newestSource(path) : entry.name.endsWith('.ts') ? statSync(path).mtimeMs : 0,
    );
  }
  return newest;
}

const fresh = () =>
  existsSync(MARKER) &&
  statSync(MARKER).mtimeMs >= Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'channels')));

/** Builds `dist/` unless it is newer than every source file. */
export async function ensureBuilt(): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    if (fresh()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      await new Promise((r) => setTimeout(r, 500)); // another test file is building; wait for it
      continue;
    }
    try {
      if (!fresh())
        execFileSync(
          process.execPath,
          [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
          { cwd: ROOT, stdio: 'inherit' },
        );
    } finally {
      rmdirSync(LOCK);
    }
  }
}

/**
 * Rebuilds the hooks' bundle (`dist/hook/hook.cjs`) unless it is newer than every source it was built from — the
 * check `bin/tollgate.js` makes before running a hook in a source checkout, which refuses a stale bundle. Built
 * beside it and renamed into place, so a hook running meanwhile reads the old bundle or the new, never half of one.
 */
export async function ensureHookBundle(): Promise<void> {
  const { staleHookBundle } = createRequire(import.meta.url)('../../bin/hook-bundle.js') as {
    staleHookBundle(root: string): string | null;
  };
  mkdirSync(join(ROOT, 'dist/hook'), { recursive: true });
  const lock = join(ROOT, 'dist/.hook-build-lock');
  for (;;) {
    if (staleHookBundle(ROOT) === null) return;
    try {
      mkdirSync(lock);
    } catch {
      await new Promise((r) => setTimeout(r, 500)); // another test file is building it; wait for it
      continue;
    }
    try {
      if (staleHookBundle(ROOT) !== null) {
        const { buildHookBundle, HOOK_SOURCES } = await import('../../scripts/build-hook.js');
        const staging = mkdtempSync(join(ROOT, 'dist/hook/.build-'));
        await buildHookBundle(join(staging, 'hook.cjs'));
        renameSync(join(staging, HOOK_SOURCES), join(ROOT, 'dist/hook', HOOK_SOURCES));
        renameSync(join(staging, 'hook.cjs'), join(ROOT, 'dist/hook/hook.cjs'));
        rmSync(staging, { recursive: true, force: true });
      }
    } finally {
      rmdirSync(lock);
    }
  }
}

/** Makes `dir/node_modules/tollgate` point at this package, so code in `dir` imports it by name as a user would. */
export function linkPackage(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/tollgate'), 'dir');
}
