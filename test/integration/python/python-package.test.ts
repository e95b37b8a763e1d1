/**
 * The Python package's own tests (clients/python/tests, pytest against a gateway they start from this checkout),
 * run as part of `npm test`: each pytest test is a vitest test of the same name here, so a failure shows with
 * pytest's words and `npm test`'s counts (and .ci/run's closing line) count the Python tests one by one.
 *
 * pytest collects once while this file is collected (the names), then runs the whole suite once in `beforeAll`
 * (one gateway for all of it); each test here reads its outcome from the report pytest's conftest writes. The
 * gateway runs on this worker's Node (`TOLLGATE_NODE`), so CI's Node 24 pass tests it there too. Needs Debian's
 * python3 with pytest (`apt-get install python3-pytest`; .ci/run installs it); without it, one failing test says so.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const TESTS = 'clients/python/tests';
/** Debian's python3 (the pyenv shim a PATH may put first starts slowly and may lack pytest). */
const PYTHON = process.env.TOLLGATE_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', TOLLGATE_NODE: process.execPath };
/** The whole pytest run: a gateway and a restart, a wheel built into a fresh venv, on a loaded machine. */
const RUN_TIMEOUT_MS = 600_000;

interface Outcome {
  nodeid: string;
  when: 'setup' | 'call' | 'teardown';
  outcome: 'passed' | 'failed' | 'skipped';
  detail: string;
}

/** The test ids pytest collects, or the reason it could not. */
function collect(): { ids: string[]; error?: string } {
  try {
    const out = execFileSync(PYTHON, ['-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider', TESTS], {
      cwd: ROOT,
      env: ENV,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { ids: out.split('\n').filter((line) => line.includes('::')) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ids: [], error: `${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const collected = collect();
const dir = mkdtempSync(join(tmpdir(), 'tollgate-pytest-'));
const report = join(dir, 'report.jsonl');
let output = '';
const outcomes = new Map<string, Outcome[]>();

describe('the Python package (pytest)', () => {
  beforeAll(async () => {
    if (collected.error) return;
    const child = spawn(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', TESTS], {
      cwd: ROOT,
      env: { ...ENV, TOLLGATE_PYTEST_REPORT: report },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await new Promise<void>((resolve) => child.once('close', () => resolve()));
    const lines = existsSync(report) ? readFileSync(report, 'utf8').split('\n').filter(Boolean) : [];
    for (const line of lines) {
      const entry = JSON.parse(line) as Outcome;
      outcomes.set(entry.nodeid, [...(outcomes.get(entry.nodeid) ?? []), entry]);
    }
  }, RUN_TIMEOUT_MS);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  if (collected.error)
    it('collects the Python tests', () => {
      throw new Error(
        `pytest could not collect ${TESTS} with ${PYTHON} (apt-get install python3-pytest python3-cryptography mypy):\n${collected.error}`,
      );
    });

  for (const id of collected.ids)
    it(id, (context) => {
      const phases = outcomes.get(id.replace(/^clients\/python\//, '')) ?? outcomes.get(id);
      if (!phases) throw new Error(`pytest reported nothing for ${id}; its output:\n${output.slice(-4000)}`);
      const failed = phases.find((p) => p.outcome === 'failed');
      if (failed) throw new Error(`${failed.when} failed:\n${failed.detail}`);
      if (phases.some((p) => p.outcome === 'skipped')) context.skip();
      expect(phases.some((p) => p.when === 'call' && p.outcome === 'passed')).toBe(true);
    });
});
