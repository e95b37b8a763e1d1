import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for what another process does (a browser's service worker, a child gateway): on a loaded
    // 2-core machine that takes seconds, not the default second.
    expect: { poll: { timeout: 10_000, interval: 50 } },
    // Suites start child gateways and talk to a shared Redis; two cores are the budget.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
