/**
 * @module scripts/build-hook
 * The second step of `npm run build` (after tsc): bundles `tollgate hook <agent>` and `tollgate claude-hook` into one
 * CommonJS file, `dist/hook/hook.cjs`, which `bin/tollgate.js` loads directly for those commands. Every coding agent
 * starts a fresh `node` per tool call for its hook, so its start-up is most of its cost: one file instead of a dozen to resolve and
 * read, and CommonJS because on Node 20 the ES module loader alone costs several milliseconds per start.
 *
 * What the hook imports only lazily, after a failure (`cli/claude-hook-check`: the request-flag and hook-input
 * validators, which load zod), stays out of the bundle: that `import()` is left as it is, pointing at the compiled
 * file in `dist/src/`, which the package ships next to the bundle.
 */
import { writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile, Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The bundle's entry: the `hook` and `claude-hook` commands as `main` runs them (`--help`, usage errors, messages). */
const ENTRY = join(ROOT, 'src/cli/hook-command.ts');
/** The command modules: their `import()` of the module each runs is bundled (it runs on every call). */
const COMMANDS = new Set([ENTRY, join(ROOT, 'src/cli/claude-hook-command.ts')]);
/** Where `npm run build` writes the bundle. */
export const HOOK_BUNDLE = join(ROOT, 'dist/hook/hook.cjs');
/**
 * Beside the bundle: the source files it was built from (paths relative to the package root, one JSON array). In a
 * source checkout `bin/tollgate.js` compares their times with the bundle's and refuses a stale bundle loudly.
 */
export const HOOK_SOURCES = 'hook.sources.json';

/**
 * Keeps the lazy `import()`s of the hook's own modules out of the bundle: each becomes an `import()` of the compiled
 * file in `dist/src/`, relative to the bundle in `dist/hook/`. The command modules' own `import()`s of what they run
 * are bundled (they run on every call).
 */
function lazyImportsStayOut(): Plugin {
  return {
    name: 'lazy-imports-stay-out',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind !== 'dynamic-import' || COMMANDS.has(args.importer)) return undefined;
        const source = relative(join(ROOT, 'src'), resolve(dirname(args.importer), args.path));
        return { path: `../src/${source.split('\\').join('/')}`, external: true };
      });
    },
  };
}

/** Writes the bundle to `outfile` (default {@link HOOK_BUNDLE}); resolves with esbuild's metafile (what went in). */
export async function buildHookBundle(outfile: string = HOOK_BUNDLE): Promise<Metafile> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Nothing outside our sources: node's built-ins come through process.getBuiltinModule, and a package import
    // would mean the hook loads more than it needs (the test reads the metafile to make sure).
    packages: 'external',
    plugins: [lazyImportsStayOut()],
    metafile: true,
    legalComments: 'none',
    logLevel: 'error',
    absWorkingDir: ROOT,
  });
  const sources = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith('..') && !isAbsolute(path));
  writeFileSync(join(dirname(outfile), HOOK_SOURCES), `${JSON.stringify(sources)}\n`);
  return result.metafile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildHookBundle();
}
