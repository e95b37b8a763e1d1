#!/usr/bin/env node
// Sums the per-file CPU that test/support/cpu-profile.ts wrote (run the suite, or some files, with
// TOLLGATE_CPU_PROFILE=<dir>): `node scripts/cpu-profile-table.js <dir> [top N] [vitest JSON report]`. Prints the top
// N files by CPU (worker boot + import + tests + reaped child processes) and the totals of each part; with a JSON
// report (vitest --reporter=json), each file's test count too, to compare two runs file by file.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [dir, topArg, reportPath] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: node scripts/cpu-profile-table.js <dir> [top N] [vitest JSON report]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const root = join(import.meta.dirname, '..');
const rows = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  )
  .map((r) => ({ ...r, file: relative(root, r.file), total: r.boot + r.import + r.body + r.children }));

const tests = new Map();
if (reportPath) {
  for (const suite of JSON.parse(readFileSync(reportPath, 'utf8')).testResults)
    tests.set(relative(root, suite.name), suite.assertionResults.length);
}

const s = (x) => x.toFixed(1).padStart(7);
const sum = (k) => rows.reduce((a, r) => a + r[k], 0);
rows.sort((a, b) => b.total - a.total);
process.stdout.write(
  `${'total'.padStart(7)}${'boot'.padStart(7)}${'import'.padStart(7)}${'body'.padStart(7)}${'child'.padStart(7)}  file (CPU seconds)\n`,
);
for (const r of rows.slice(0, top)) {
  const n = tests.has(r.file) ? ` (${tests.get(r.file)} tests)` : '';
  process.stdout.write(`${s(r.total)}${s(r.boot)}${s(r.import)}${s(r.body)}${s(r.children)}  ${r.file}${n}\n`);
}
process.stdout.write(
  `${s(sum('total'))}${s(sum('boot'))}${s(sum('import'))}${s(sum('body'))}${s(sum('children'))}  all ${rows.length} files\n`,
);
