#!/usr/bin/env node
// In a source checkout, runs the TypeScript sources through tsx (so a stale dist/ can never run instead of them);
// in the published package (no src/), runs the compiled dist/. The hooks (`hook`, `claude-hook`) run from their
// one-file bundle in both: an agent starts one per tool call, and tsx alone costs ~0.4 s a start. In a source checkout
// the bundle (built by `npm install`'s `npm run build`) must be newer than every source file it was built from; a
// stale or missing one is refused loudly — the hook answers the agent's own deny saying to run `npm run build` —
// rather than run old code or silently run slow. TOLLGATE_HOOK_FROM_SOURCE=1 runs the hooks through tsx instead
// (for work on the hook itself).
//
// CommonJS (bin/package.json says so): Claude Code starts a fresh node per tool call for `claude-hook`, and on
// Node 20 an ES module entry alone costs several milliseconds of loader start-up. This file stays the same path, so
// hooks configured as `node …/bin/tollgate.js claude-hook` keep working.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

// Node 22.1+ keeps compiled code between runs, which shortens every CLI start (hooks run it per tool call); Node 20
// has no such cache and skips this, without loading node:module for nothing.
if (Number(process.versions.node.split('.')[0]) >= 22) require('node:module').enableCompileCache?.();

const root = join(__dirname, '..');
const isHook = process.argv[2] === 'claude-hook' || process.argv[2] === 'hook';
const source = join(root, 'src/cli/main.ts');
const hookBundle = join(root, 'dist/hook/hook.cjs');
process.env.TOLLGATE_CLI = '1';

/** Sets the exit code from the command's promise; an unexpected error prints its stack (exit 1), as main does. */
function finish(promise) {
  promise.then(
    (code) => {
      if (typeof code === 'number') process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

function runSource() {
  finish(
    import('tsx/esm/api').then(({ register }) => {
      register();
      return import(pathToFileURL(source).href);
    }),
  );
}

function runBundle() {
  const bundle = require(hookBundle);
  finish(
    process.argv[2] === 'hook' ? bundle.runHook(process.argv.slice(3)) : bundle.runClaudeHook(process.argv.slice(3)),
  );
}

const checkout = existsSync(source);
if (isHook && checkout && process.env.TOLLGATE_HOOK_FROM_SOURCE !== '1') {
  const stale = require('./hook-bundle.js').staleHookBundle(root);
  if (stale === null) runBundle();
  else {
    // The sources answer the agent's own deny (each agent reads its own), at tsx's cost, on this path only.
    process.env.TOLLGATE_HOOK_REFUSE = stale;
    runSource();
  }
} else if (checkout) {
  runSource();
} else if (isHook && existsSync(hookBundle)) {
  runBundle();
} else {
  finish(import(pathToFileURL(join(root, 'dist/src/cli/main.js')).href));
}
