/**
 * @module bench/micro/burst
 * `tsx bench/micro/burst.ts [N] [B]`: CPU and wall time per create and per decision on the embedded default (SQLite,
 * FULL sync unless `TOLLGATE_SQLITE_SYNC` says), with B calls in flight at a time (default 16): what group commit
 * saves when neighbours arrive together, where `decision.ts` measures one call at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { loadConfig } from '../../src/config.js';

const n = Number(process.argv[2] ?? 4000);
const burst = Number(process.argv[3] ?? 16);
const dir = mkdtempSync(join(tmpdir(), 'tollgate-micro-burst-'));
const server = await createServer({
  config: loadConfig({ port: 0, db: join(dir, 'micro.db') }),
  logger: pino({ level: 'silent' }),
});
await server.gateway.start();

/** CPU ms and wall ms per call of `fn(0)` … `fn(n - 1)`, `burst` at a time. */
async function perCall(fn: (i: number) => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i += burst)
    await Promise.all(Array.from({ length: Math.min(burst, n - i) }, (_, k) => fn(i + k)));
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / n, wall: (performance.now() - t0) / n };
}

try {
  const ids: string[] = [];
  const create = await perCall(
    async (i) =>
      (ids[i] = (
        await server.gateway.request({
          toolName: 'bench.deploy',
          toolArgs: { service: 'api', build: i },
          timeoutS: 600,
        })
      ).request.id),
  );
  const decide = await perCall((i) =>
    server.gateway.decide({
      requestId: ids[i]!,
      decision: 'approve',
      reason: 'bench',
      actor: { channel: 'web', userId: 'bench-approver' },
      via: 'api',
    }),
  );
  const f = (x: { cpu: number; wall: number }) => `${x.cpu.toFixed(3)} ms CPU, ${x.wall.toFixed(3)} ms wall`;
  process.stdout.write(
    `sync ${process.env.TOLLGATE_SQLITE_SYNC ?? 'full'}, ${burst} in flight, n=${n}: create ${f(create)}; decision ${f(decide)} per call\n`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
