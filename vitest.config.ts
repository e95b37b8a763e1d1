import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Suites start child gateways and talk to a shared Redis; two cores are the budget.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
