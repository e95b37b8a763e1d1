/**
 * A vitest reporter that prints, after the run, the ten test files that took longest, so a file that grows slow is
 * seen in every `npm test` and CI log. Time is the file's own wall time in its worker: importing it (collect) plus its
 * tests and hooks. Add it after the reporters that print the summary (vitest.config.ts; .ci/run names it again,
 * because reporters given on the command line replace the configured ones).
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many files the list shows. */
const SHOWN = 10;

/** Seconds with one decimal, right-aligned. */
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);

/** Prints the slowest test files at the end of a run. */
export default class SlowestFiles implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        return {
          file: relative(this.root, m.moduleId),
          collect: d.collectDuration,
          tests: d.duration,
          tests_n: [...m.children.allTests()].length,
        };
      })
      .map((r) => ({ ...r, total: r.collect + r.tests }))
      .sort((a, b) => b.total - a.total)
      .slice(0, SHOWN);
    if (rows.length === 0) return;
    const lines = rows.map(
      (r) => `${seconds(r.total)}  ${r.file} (${r.tests_n} tests; import ${(r.collect / 1000).toFixed(1)} s)`,
    );
    process.stdout.write(
      `\n Slowest ${rows.length} test files (import + tests, wall time in their worker):\n${lines.join('\n')}\n\n`,
    );
  }
}
