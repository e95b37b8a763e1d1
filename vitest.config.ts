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
];

/**
 * Test files that run without isolation (one worker process and module cache for many files): pure unit tests and the
 * store/channel contracts, which touch no process-wide state (no vi.mock or spies, no globals, no process handlers,
 * no environment changes but feishu's NO_PROXY, which they all set alike). A fresh process per file costs ~0.25 s
 * of CPU to boot and ~0.3 s to import vitest and the sources again: these 63 files ran 83 -> 52 s of CPU.
 * test/unit/telemetry/ stays isolated: it registers OpenTelemetry's global tracer provider, which a process takes once.
 */
const SHARED = ['test/unit/*.test.ts', 'test/unit/!(telemetry)/**/*.test.ts', 'test/contracts/**/*.test.ts'];

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
    // Does nothing unless TOLLGATE_CPU_PROFILE names a directory: then each file writes its CPU there.
    setupFiles: ['./test/support/cpu-profile.ts'],
    sequence: { sequencer: WaitingFirst },
    projects: [
      {
        extends: true,
        test: { name: 'waiting', include: WAITING, maxWorkers: workers },
      },
      {
        extends: true,
        test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...WAITING, ...SHARED], maxWorkers: workers },
      },
      {
        extends: true,
        test: { name: 'shared', include: SHARED, isolate: false, maxWorkers: workers },
      },
    ],
  },
});
