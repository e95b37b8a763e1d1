/**
 * @module bench/micro/hot-profile
 * `tsx bench/micro/hot-profile.ts DIR [N]`: the in-process create and decision paths of `bench/micro/decision.ts`
 * (`gateway.request`, then `gateway.decide` of each, on the embedded SQLite default), each under its own V8 CPU
 * profile (`DIR/create.cpuprofile`, `DIR/decision.cpuprofile`; summarise with `bench/profile-summary.ts`), after a
 * warm-up of N/4 calls of each so the profiles show the steady state, not the first compilation.
 * `TOLLGATE_SQLITE_SYNC=normal` leaves the fsync out of the picture.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createServer } from '../../src/server.js';
import { loadConfig } from '../../src/config.js';
import { cpuMsPerCall } from './cpu.js';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: tsx bench/micro/hot-profile.ts DIR [N]\n');
  process.exit(2);
}
const n = Number(process.argv[3] ?? 3000);
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'tollgate-hot-profile-'));
const server = await createServer({
  config: loadConfig({ port: 0, db: join(dir, 'micro.db') }),
  logger: pino({ level: 'silent' }),
});
await server.gateway.start();
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 250 });
const create = (i: number) =>
  server.gateway.request({ toolName: 'bench.deploy', toolArgs: { service: 'api', build: i }, timeoutS: 600 });
const decide = (id: string) =>
  server.gateway.decide({
    requestId: id,
    decision: 'approve',
    reason: 'bench',
    actor: { channel: 'web', userId: 'bench-approver' },
    via: 'api',
  });
/** Runs `phase` under the profiler, writes its profile, and says its CPU per call. */
async function profiled(name: string, phase: () => Promise<number>): Promise<void> {
  await session.post('Profiler.start');
  const cpuMs = await phase();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(join(out!, `${name}.cpuprofile`), JSON.stringify(profile));
  process.stdout.write(`${name}: ${cpuMs.toFixed(3)} ms CPU per call (profiled), n=${n}\n`);
}
try {
  const warm: string[] = [];
  for (let i = 0; i < n / 4; i++) warm.push((await create(-i - 1)).request.id);
  for (const id of warm) await decide(id);
  const ids: string[] = [];
  await profiled('create', () => cpuMsPerCall(n, async (i) => ids.push((await create(i)).request.id)));
  await profiled('decision', () => cpuMsPerCall(n, (i) => decide(ids[i]!)));
} finally {
  session.disconnect();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
