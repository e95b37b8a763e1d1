/**
 * `--baseline REV` (bench/baseline.ts): a revision checked out into a temporary worktree, given node_modules and
 * built; its gateway starts and its in-process micro runs; removing it leaves no worktree behind. Measured on HEAD,
 * whose lockfile is ours, so its node_modules are ours through a symlink (an install would take minutes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lockfileCovered, prepareBaseline } from '../../../bench/baseline.js';
import { builtEntry, startGateway } from '../../../bench/processes.js';
import { microIn, runMicro } from '../../../bench/scenarios/baseline.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const worktrees = () => execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: ROOT, encoding: 'utf8' });

describe('lockfileCovered', () => {
  const ours = { '': {}, 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.1.0' } };

  it('holds when every package of theirs is in ours at the same version, extra packages of ours aside', () => {
    expect(lockfileCovered({ '': { version: '0.1.0' }, 'node_modules/a': { version: '1.0.0' } }, ours)).toBe(true);
  });

  it('fails on a package of another version, or one we do not have', () => {
    expect(lockfileCovered({ 'node_modules/b': { version: '2.0.0' } }, ours)).toBe(false);
    expect(lockfileCovered({ 'node_modules/c': { version: '1.0.0' } }, ours)).toBe(false);
  });
});

describe('prepareBaseline', () => {
  it('checks HEAD out into a worktree, links our node_modules, builds a gateway that serves and a micro that measures, and removes the worktree', async () => {
    const lines: string[] = [];
    const before = worktrees();
    const baseline = await prepareBaseline('HEAD', (line) => lines.push(line));
    let tree: string | undefined;
    try {
      expect(baseline.commit).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim());
      expect(baseline.modules).toBe('symlink');
      expect(lines.join('\n')).toContain('node_modules by symlink');
      expect(readFileSync(baseline.main, 'utf8')).toContain('serve');
      // Its own worktree (a bench running beside the test may hold another baseline's).
      tree = [...worktrees().matchAll(/^worktree (.*tollgate-bench-baseline-.*)$/gm)]
        .map((m) => m[1]!)
        .find((path) => !before.includes(path));
      expect(tree && existsSync(tree)).toBe(true);

      const gateway = await startGateway({ dbPath: ':memory:', entry: builtEntry(baseline.main) });
      try {
        const ready = await fetch(`${gateway.url}/readyz`);
        expect(ready.status).toBe(200);
      } finally {
        await gateway.stop();
      }
      const micro = await runMicro(await microIn(baseline.main), 50);
      expect(micro.n).toBe(50);
      expect(micro.create_ms).toBeGreaterThan(0);
      expect(micro.decide_ms).toBeGreaterThan(0);
    } finally {
      baseline.remove();
    }
    expect(worktrees()).not.toContain(tree);
  }, 120_000);
});
