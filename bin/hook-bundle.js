// Whether the hooks' one-file bundle (dist/hook/hook.cjs) stands for the sources of a source checkout: built after
// every source file it was built from last changed (the build lists them in dist/hook/hook.sources.json). Used by
// bin/tollgate.js on every hook call in a checkout, so it stats a few dozen files and loads nothing else; and by the
// tests that run the hooks as users do, to rebuild a stale bundle first.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** Why the bundle under `root` cannot run for its sources (missing, or older than one of them), or null when it can. */
function staleHookBundle(root) {
  const fix = `run \`npm run build\` in ${root} (npm install runs it too)`;
  let built;
  let sources;
  try {
    built = statSync(join(root, 'dist/hook/hook.cjs')).mtimeMs;
    sources = JSON.parse(readFileSync(join(root, 'dist/hook/hook.sources.json'), 'utf8'));
  } catch {
    return `the hook bundle (dist/hook/hook.cjs) of this source checkout is missing: ${fix}`;
  }
  for (const file of sources) {
    let changed;
    try {
      changed = statSync(join(root, file)).mtimeMs;
    } catch {
      changed = Infinity; // a source the bundle was built from is gone
    }
    if (changed > built)
      return `the hook bundle (dist/hook/hook.cjs) is older than ${file} in this source checkout: ${fix}`;
  }
  return null;
}

module.exports = { staleHookBundle };
