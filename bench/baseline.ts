/**
 * @module bench/baseline
 * `--baseline REV` (issue 47): another revision of tollgate, built beside this one so that one run measures both.
 * The revision is checked out with `git worktree add --detach` into a temp directory and transpiled like this
 * checkout's gateway (`built-gateway.ts`); the worktree is removed at the end of the run.
 *
 * Its node_modules: this checkout's, through a symlink, when every package its lockfile names is in ours at the same
 * version (then it runs on exactly the versions it would install). Otherwise its own `npm ci --ignore-scripts` (or
 * `npm install` when its lockfile is out of step with its package.json, which `npm ci` refuses), kept
 * in the temp directory under a key made of its lockfile's hash (`tollgate-bench-modules-<hash>`) and reused by the
 * next run; native packages are copied from ours when ours are the same version (the same binary: same package, same
 * node), else rebuilt with `npm rebuild`. Which of the three happened, and how long it took, is in the results.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGateway } from './built-gateway.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A baseline revision, checked out and built. */
export interface Baseline {
  /** As asked (`03bbb0e`) and as resolved (the full hash). */
  rev: string;
  commit: string;
  /** Its build's `src/cli/main.js`. */
  main: string;
  /** How its node_modules came to be: `symlink`, `npm ci` or `npm install`, the last two with ` (kept)` when reused. */
  modules: string;
  /** Seconds spent checking out, installing and building. */
  prepare_s: number;
  /** Removes the worktree. */
  remove(): void;
}

type LockPackages = Record<string, { version?: string }>;

/** Whether every package of `theirs` is in `ours` at the same version (node_modules/… paths of package-lock v2+). */
export function lockfileCovered(theirs: LockPackages, ours: LockPackages): boolean {
  return Object.entries(theirs).every(([path, pkg]) => path === '' || ours[path]?.version === pkg.version);
}

const git = (args: string[]) =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Checks `rev` out into a temp worktree, gives it node_modules and builds it. */
export async function prepareBaseline(rev: string, log: (line: string) => void): Promise<Baseline> {
  const started = Date.now();
  const commit = git(['rev-parse', '--verify', `${rev}^{commit}`]);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-bench-baseline-'));
  const tree = join(dir, 'tree');
  git(['worktree', 'add', '--detach', tree, commit]);
  const remove = () => {
    try {
      git(['worktree', 'remove', '--force', tree]);
    } catch {
      // Already gone: prune forgets it.
      git(['worktree', 'prune']);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const theirLock = readFileSync(join(tree, 'package-lock.json'), 'utf8');
    const ours = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: LockPackages })
      .packages;
    let modules: string;
    if (lockfileCovered((JSON.parse(theirLock) as { packages: LockPackages }).packages, ours)) {
      symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
      modules = 'symlink';
    } else {
      const kept = join(
        tmpdir(),
        `tollgate-bench-modules-${createHash('sha256').update(theirLock).digest('hex').slice(0, 16)}`,
      );
      modules = existsSync(join(kept, 'installed-by'))
        ? `${readFileSync(join(kept, 'installed-by'), 'utf8').trim()} (kept)`
        : installInto(kept, tree, log);
      symlinkSync(join(kept, 'node_modules'), join(tree, 'node_modules'));
    }
    const main = await buildGateway(tree);
    const prepareS = Math.round((Date.now() - started) / 100) / 10;
    log(`baseline ${rev} (${commit.slice(0, 12)}): node_modules by ${modules}, ready in ${prepareS} s`);
    return { rev, commit, main, modules, prepare_s: prepareS, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** `npm ci` of the worktree's lockfile into `kept` (built in a sibling directory and renamed, so a failure leaves none). */
function installInto(kept: string, tree: string, log: (line: string) => void): string {
  const work = `${kept}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    writeFileSync(join(work, file), readFileSync(join(tree, file)));
  log(`baseline: npm ci into ${kept} (its lockfile differs from ours)`);
  // No scripts: the root's `prepare` would type-check and build a tree we do not use.
  const flags = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  let how = 'npm ci';
  try {
    execFileSync('npm', ['ci', ...flags], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    // A revision whose lockfile lacks some optional platform packages its package.json gained (03bbb0e: msgpackr's
    // prebuilds) is refused by `npm ci`; `npm install` keeps every locked version and adds only what is missing.
    log(
      `baseline: npm ci refused its lockfile (${
        String((error as { stderr?: Buffer }).stderr ?? error)
          .split('\n')
          .find((l) => l.includes('npm error') && !l.includes('code')) ?? 'see npm'
      }); npm install with its lockfile instead`,
    );
    execFileSync('npm', ['install', ...flags], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
    how = 'npm install';
  }
  const rebuild: string[] = [];
  for (const name of nativePackages(join(work, 'node_modules'))) {
    const theirs = join(work, 'node_modules', name);
    const ours = join(ROOT, 'node_modules', name);
    const version = (dir: string) =>
      existsSync(join(dir, 'package.json'))
        ? (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version
        : null;
    if (version(theirs) === version(ours) && existsSync(join(ours, 'build', 'Release')))
      cpSync(join(ours, 'build'), join(theirs, 'build'), { recursive: true });
    else rebuild.push(name);
  }
  if (rebuild.length) {
    log(`baseline: npm rebuild ${rebuild.join(' ')}`);
    execFileSync('npm', ['rebuild', ...rebuild], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  writeFileSync(join(work, 'installed-by'), `${how}\n`);
  rmSync(kept, { recursive: true, force: true });
  renameSync(work, kept);
  return how;
}

/** Top-level packages (scoped ones too) that compile a native addon (`binding.gyp`). */
function nativePackages(modules: string): string[] {
  const names = readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name],
  );
  return names.filter((name) => existsSync(join(modules, name, 'binding.gyp')));
}
