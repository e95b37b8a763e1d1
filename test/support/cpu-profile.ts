/**
 * CPU per test file, for profiling rounds: with `TOLLGATE_CPU_PROFILE=<dir>` set, each test file's worker writes
 * `<dir>/<pid>-<n>.json` with its CPU split three ways, read from /proc/self/stat (clock ticks, 10 ms):
 * - `boot`: the worker's own CPU before this file (process start, vitest's runtime, this setup file), or for a reused
 *   worker the CPU since the previous file ended;
 * - `import`: importing the test file and everything it imports (vite's module runner: fetch, evaluate);
 * - `body`: hooks and tests;
 * - `children`: CPU of the processes the file started and reaped (child gateways, CLIs, esbuild), as the kernel
 *   counts them (cutime + cstime), which a worker only gets once it has waited for them.
 * Without the variable it does nothing. Summed by scripts/cpu-profile-table.js.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const DIR = process.env.TOLLGATE_CPU_PROFILE;

/** Seconds of CPU: the process's own (user + system) and its reaped children's. */
function cpu(): { self: number; children: number } {
  // Fields after the command name (which sits in parentheses and may hold spaces): utime is the 12th, then stime,
  // cutime, cstime.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
  return { self: (utime + stime) / 100, children: (cutime + cstime) / 100 };
}

if (DIR) {
  const g = globalThis as { __cpuProfileLast?: { self: number; children: number }; __cpuProfileN?: number };
  const start = cpu();
  const previous = g.__cpuProfileLast ?? { self: 0, children: 0 };
  let collected = start;
  beforeAll(() => {
    collected = cpu();
  });
  afterAll(() => {
    const end = cpu();
    g.__cpuProfileLast = end;
    g.__cpuProfileN = (g.__cpuProfileN ?? 0) + 1;
    const file = expect.getState().testPath ?? 'unknown';
    mkdirSync(DIR, { recursive: true });
    const row = {
      file,
      pid: process.pid,
      n: g.__cpuProfileN,
      boot: start.self - previous.self,
      import: collected.self - start.self,
      body: end.self - collected.self,
      children: end.children - previous.children,
    };
    appendFileSync(join(DIR, `${process.pid}-${g.__cpuProfileN}.json`), `${JSON.stringify(row)}\n`);
  });
}
