/**
 * @module bench/built-gateway
 * What `npm run bench` runs by default (`--source` runs bin/tollgate.js through tsx instead): the gateway as plain
 * JavaScript, the way the Docker image does (`node dist/…`). The sources are transpiled file by file with esbuild
 * (no type check, no bundling) into a private temp directory, so the team's `dist/` (which bin/tollgate.js prefers)
 * stays untouched.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile } from 'esbuild';
import { buildHookBundle } from '../scripts/build-hook.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Transpiles `src/` and `channels/` of the checkout at `root` (this one by default; `--baseline` passes another
 * revision's worktree) into a temp directory; returns the path of its `src/cli/main.js`.
 */
export async function buildGateway(root: string = ROOT): Promise<string> {
  const { build } = await import('esbuild');
  const out = mkdtempSync(join(tmpdir(), 'tollgate-bench-build-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'channels'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    entryPoints: files.map((f) => join(root, f)),
    outdir: out,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'error',
  });
  // Bare imports resolve through node_modules found upward from the file; migrations are found next to src/.
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'));
  // As in the package, whose package.json says so: without it node 20 parses each file as CommonJS first, fails, and
  // parses it again as a module (about 9 ms more per `claude-hook` call, and more at every gateway start).
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(root, 'migrations'), join(out, 'migrations'));
  return join(out, 'src', 'cli', 'main.js');
}

/**
 * `tollgate claude-hook` as the published package runs it: a temp directory laid out like the package (`bin/`, the
 * hook bundle in `dist/hook/`, and the transpiled tree of {@link buildGateway} as `dist/src/` for what the hook loads
 * only after a failure), without `src/*.ts`, so `bin/tollgate.js` takes its bundle path. `main` is the path
 * {@link buildGateway} returned (or `dist/src/cli/main.js` of a tsc build); resolves with the path of the layout's
 * `bin/tollgate.js` and esbuild's metafile of the bundle.
 */
export async function buildHookPackage(main: string): Promise<{ bin: string; metafile: Metafile }> {
  const out = mkdtempSync(join(tmpdir(), 'tollgate-bench-hook-'));
  cpSync(join(ROOT, 'bin'), join(out, 'bin'), { recursive: true });
  const metafile = await buildHookBundle(join(out, 'dist', 'hook', 'hook.cjs'));
  symlinkSync(dirname(dirname(main)), join(out, 'dist', 'src'));
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  return { bin: join(out, 'bin', 'tollgate.js'), metafile };
}
