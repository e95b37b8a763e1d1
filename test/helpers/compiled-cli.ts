/**
 * The CLI's sources compiled to JavaScript, file by file, for tests that start `tollgate serve` as a child process
 * again and again (restarts, replicas, multi-process, faults). Started through bin/tollgate.js, every such process
 * loads its TypeScript through tsx: about 3.3 s of CPU before it listens, against 1.4 s for the same modules
 * compiled. The code is the same (esbuild strips the types, one output file per source file, so lazy imports stay
 * lazy); the files that start the CLI dozens of times (hooks, `ask`, `mcp`) use it too, while test/integration/cli/
 * still runs bin/tollgate.js itself.
 *
 * The build lives outside the checkout (in the temp dir, named after the checkout's path), is rebuilt when a source
 * file is newer than it (about a second), and a lock directory keeps parallel test files from building it twice.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, newestSource } from './built-package.js';

// The stdio fake MCP upstream too: the mcp tests start it beside every proxy.
const SOURCES = ['src', 'channels', 'test/fakes/mcp'];
/** Where the build goes: `<tmp>/tollgate-test-build-<hash of the checkout path and SOURCES>` (a new list, a new build). */
const BUILD = join(
  tmpdir(),
  `tollgate-test-build-${createHash('sha256')
    .update(`${ROOT}\0${SOURCES.join('\0')}`)
    .digest('hex')
    .slice(0, 12)}`,
);
const MARKER = join(BUILD, 'built');
const LOCK = `${BUILD}.lock`;

const fresh = () =>
  existsSync(MARKER) && statSync(MARKER).mtimeMs >= Math.max(...SOURCES.map((dir) => newestSource(join(ROOT, dir))));

/** Every `.ts` source file under `dir` (declaration files left out). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Compiles into a scratch directory, then swaps it in: a half-written build is never what runs. */
function build(): void {
  const scratch = `${BUILD}.${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  const entryPoints = SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  // esbuild's CLI through its JS API in a child, so this helper stays synchronous and the test worker loads nothing.
  const script = `require('esbuild').buildSync(${JSON.stringify({ entryPoints, outdir: scratch, outbase: ROOT, format: 'esm', platform: 'node', target: 'node20', logLevel: 'error' })})`;
  execFileSync(process.execPath, ['-e', script], { cwd: ROOT, stdio: 'inherit' });
  // What the compiled files find next to them as they would in the package: the SQL migrations (looked up relative
  // to the module), the dependencies, and `"type": "module"`.
  symlinkSync(join(ROOT, 'migrations'), join(scratch, 'migrations'), 'dir');
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  writeFileSync(join(scratch, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(scratch, 'built'), '');
  rmSync(BUILD, { recursive: true, force: true });
  renameSync(scratch, BUILD);
}

/** The compiled `src/cli/main.js`, built first unless it is newer than every source file. */
export async function compiledCli(): Promise<string> {
  return compiled('src/cli/main.ts');
}

/** The compiled JavaScript of `source` (a `.ts` path under one of SOURCES, relative to the repository). */
export async function compiled(source: string): Promise<string> {
  while (!tryBuild()) await new Promise((r) => setTimeout(r, 100));
  return join(BUILD, source.replace(/\.ts$/, '.js'));
}

/**
 * {@link compiledCli} for helpers that start a CLI synchronously (and hand back its ChildProcess at once): while
 * another test file builds, this worker blocks (Atomics.wait, 100 ms at a time) instead of yielding; a build takes
 * about a second.
 */
export function compiledCliSync(): string {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!tryBuild()) Atomics.wait(pause, 0, 0, 100);
  return join(BUILD, 'src/cli/main.js');
}

/** True once the build is fresh (building it if no one else is); false while another test file builds it. */
function tryBuild(): boolean {
  if (fresh()) return true;
  try {
    mkdirSync(LOCK);
  } catch {
    // Another test file is building it: wait. A lock older than a minute was left by a run that was killed.
    if (Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 60_000)
      rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
  try {
    if (!fresh()) build();
  } finally {
    rmdirSync(LOCK);
  }
  return true;
}
