/**
 * @module bench/micro/idle-rss
 * `tsx bench/micro/idle-rss.ts`: RSS of an idle gateway on an empty database, once run through bin/tollgate.js
 * (tsx when dist/ is absent) and once as plain node on the sources' JavaScript build when `--built DIR` names one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../processes.js';
import { rssMb, waitIdle } from '../proc.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-idle-'));
try {
  const gateway = await startGateway({ dbPath: join(dir, 'idle.db') });
  await waitIdle(gateway.pid);
  process.stdout.write(`idle gateway (bin/tollgate.js): ${rssMb(gateway.pid).toFixed(0)} MB RSS\n`);
  await gateway.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
