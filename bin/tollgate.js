#!/usr/bin/env node
// Runs the built CLI when `npm run build` has produced dist/, else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/src/cli/main.js', import.meta.url);
process.env.TOLLGATE_CLI = '1';
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
