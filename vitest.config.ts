import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import WaitingFirst from './test/support/sequencer.js';

/**
 * Test files that spend their time waiting, not computing: on child gateways started as processes, on real seconds
 * (deadlines, partitions, Redis restarts). They start first (test/support/sequencer.ts), and the CPU-bound files fill
 * the cores around them while they wait: in a pool of their own, run before the rest, they left the CPU idle for
 * most of their ~80 s (the fault suite alone at the end). A file belongs here when most of its wall time is spent
 * waiting; the real coding-agent CLIs (test/agents/) compute, so they are not here.
 */
const WAITING = [
  'test/faults/**/*.test.ts',
  'test/integration/bullmq/multi-process.test.ts',
  'test/integration/bullmq/scheduler-faults.test.ts',
  'test/integration/integrations/hook-routes.test.ts',
  'test/integration/integrations/claude-hook-cli.test.ts',
  'test/integration/cli/terminal-escapes.test.ts',
  'test/integration/cli/terminal-approvals.test.ts',
  'test/integration/core/restart.test.ts',
  'test/integration/postgres/replicas.test.ts',
  'test/integration/python/python-package.test.ts',
];

/**
 * Test files that run without isolation (one worker process and module cache for many files, one file at a time): a
 * fresh process per file costs ~0.15 s of CPU to boot and ~0.4 s to import vitest and the sources again. Unit tests
 * and the store/channel contracts (63 files: 83 -> 52 s of CPU), then the integration, browser and agent files
 * (192, the Web Push ones among them: 397 -> 275 s, measured with TOLLGATE_CPU_PROFILE; their worker boot and
 * import 96 -> 9 s). Each starts its own gateways, databases, fake services and browsers and closes them; what stays
 * in the process between files is the module cache, and the module-level state in src/ and channels/ is none a test
 * relies on (caches, and src/requests/ids.ts's last millisecond, which only keeps ids ordered); runs of the project
 * with the files shuffled pass. The Web Push files share too, since it was found how their "no push" in a shared
 * worker came about: `web-push` was loaded with `import()`, whose failed load a process keeps for good, and the
 * channel dropped that failure without a log, so one transient failure silenced every later push of the worker
 * (src/push/sender.ts loads it with `require` now; a failed load is retried and logged). The one
 * environment change, the feishu files' NO_PROXY=127.0.0.1, is made alike by every file that makes it (the
 * contract's too), and the tests talk to 127.0.0.1 only. Files that stay isolated, in `main` (the globs below leave
 * them out):
 * - test/unit/telemetry/, and integration/telemetry/traces and client-traceparent: they register OpenTelemetry's
 *   global tracer provider and propagator, which a process takes once (the other two telemetry files register
 *   nothing: one runs its gateway in a child process);
 * - the three files that run a CLI in process with `vi.spyOn(process.stdout, 'write')` (history/prune,
 *   history/query-plans, people/former-members): restored in `finally`, but a test timing out mid-CLI would leave
 *   the spy on for the files after it;
 * - the WAITING files, which have a project of their own.
 */
const SHARED = [
  'test/unit/*.test.ts',
  'test/unit/!(telemetry)/**/*.test.ts',
  'test/contracts/**/*.test.ts',
  'test/integration/*.test.ts',
  'test/integration/!(telemetry|history|people)/**/*.test.ts',
  'test/integration/telemetry/!(traces|client-traceparent).test.ts',
  'test/integration/history/!(prune|query-plans).test.ts',
  'test/integration/people/!(former-members).test.ts',
  'test/browser/**/*.test.ts',
  'test/agents/**/*.test.ts',
];

/**
 * vitest shuffles files (`--sequence.shuffle`, `--sequence.shuffle.files`) only with no sequencer configured: with one
 * of ours the flag would quietly change nothing, and a file that depends on the files run before it in a `shared`
 * worker would not be found. So the waiting-first order steps aside when the command line asks for a shuffle, as CI's
 * second pass does (.ci/run): there the waiting files start wherever the seed puts them, which costs that pass wall
 * time the first one saves.
 */
const shuffling = process.argv.some(
  (arg) =>
    arg === '--sequence.shuffle' || arg.startsWith('--sequence.shuffle.files') || arg.startsWith('--sequence.shuffle='),
);

const cores = availableParallelism();
/**
 * One pool for every file (vitest runs projects with different `maxWorkers` one after the other): two more workers
 * than cores, since the waiting files and most others wait on something (PostgreSQL, Redis, a child gateway) a part
 * of the time; suites start child gateways and talk to a shared Redis, so not many more.
 */
const workers = cores + 2;

export default defineConfig({
  test: {
    // No `include` here: the projects' own lists would be added to it (`extends: true` merges arrays).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for what another process does (a browser's service worker, a child gateway): on a loaded
    // 2-core machine that takes seconds, not the default second.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    // 'default' prints the results; the second prints the ten slowest files after them (.ci/run names both again).
    reporters: ['default', './test/support/slowest-files.ts'],
    // remove-leftovers: after each file, drops the databases and Redis keys it made and did not remove (a hook that
    // timed out half-way), test/support/leftovers.ts. cpu-profile does nothing unless TOLLGATE_CPU_PROFILE names a
    // directory: then each file writes its CPU there.
    setupFiles: ['./test/support/remove-leftovers.ts', './test/support/cpu-profile.ts'],
    sequence: shuffling ? {} : { sequencer: WaitingFirst },
    projects: [
      {
        extends: true,
        test: { name: 'waiting', include: WAITING, maxWorkers: workers },
      },
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...WAITING, ...SHARED],
          maxWorkers: workers,
        },
      },
      {
        extends: true,
        test: {
          name: 'shared',
          include: SHARED,
          exclude: [...configDefaults.exclude, ...WAITING],
          isolate: false,
          maxWorkers: workers,
        },
      },
    ],
  },
});
