#!/usr/bin/env node
// In a source checkout, runs the TypeScript sources through tsx (so a stale dist/ can never run instead of them);
// in the published package (no src/), runs the compiled dist/.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps compiled code between runs, which shortens every CLI start (hooks run it per tool call); Node 20
// has no such cache and skips this.
module.enableCompileCache?.();

const source = new URL('../src/cli/main.ts', import.meta.url);
process.env.TOLLGATE_CLI = '1';
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/src/cli/main.js', import.meta.url).href);
}
