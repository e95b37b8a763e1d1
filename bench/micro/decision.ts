/**
 * @module bench/micro/decision
 * `tsx bench/micro/decision.ts [N]`: CPU per `gateway.request` and per `gateway.decide` on the embedded default
 * (SQLite), in one process with no HTTP around it: the evidence behind the decision path's share of the bench's
 * `decision_cpu_ms_per_request`. `TOLLGATE_SQLITE_SYNC=normal` shows what the fsync of `full` adds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { loadConfig } from '../../src/config.js';
import { cpuMsPerCall } from './cpu.js';

const n = Number(process.argv[2] ?? 2000);
const dir = mkdtempSync(join(tmpdir(), 'tollgate-micro-decision-'));
const server = await createServer({
  config: loadConfig({ port: 0, db: join(dir, 'micro.db') }),
  logger: pino({ level: 'silent' }),
});
await server.gateway.start();
try {
  const cpuMs = (fn: (i: number) => Promise<unknown>) => cpuMsPerCall(n, fn);
  const ids: string[] = [];
  const create = await cpuMs(async (i) =>
    ids.push(
      (
        await server.gateway.request({
          toolName: 'bench.deploy',
          toolArgs: { service: 'api', build: i },
          timeoutS: 600,
        })
      ).request.id,
    ),
  );
  const decide = await cpuMs((i) =>
    server.gateway.decide({
      requestId: ids[i]!,
      decision: 'approve',
      reason: 'bench',
      actor: { channel: 'web', userId: 'bench-approver' },
      via: 'api',
    }),
  );
  process.stdout.write(
    `sync ${process.env.TOLLGATE_SQLITE_SYNC ?? 'full'}: ${create.toFixed(3)} ms CPU per create (one at a time), ${decide.toFixed(3)} ms per decision, n=${n}\n`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
