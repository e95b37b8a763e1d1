/**
 * @module bench/micro/cpu
 * The one CPU measure of the in-process micro benches that await each call (`decision.ts`, `hook-route.ts`).
 */

/** Milliseconds of this process's CPU (user + system, every thread) per call of `fn(0)` … `fn(n - 1)`, awaited one at a time. */
export async function cpuMsPerCall(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}
