/**
 * @module bench/micro/waiter-memory
 * `node --expose-gc --import tsx bench/micro/waiter-memory.ts [N]`: what one parked long-poll costs, split into V8 heap,
 * external memory and the rest of RSS (sockets, parser, allocator), measured after a full GC inside a gateway that
 * runs in this process on a temp SQLite file. The N long-polls come from a child process, one connection each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';

const count = Number(process.argv[2] ?? 5000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const dir = mkdtempSync(join(tmpdir(), 'tollgate-waiters-'));
const server = await createServer({
  config: loadConfig(
    { port: 0, host: '127.0.0.1', db: join(dir, 'w.db') },
    {
      TOLLGATE_API_TOKENS: 'm',
      LOG_LEVEL: 'warn',
      TOLLGATE_RATE_LIMIT: '0',
      TOLLGATE_MAX_CONNECTIONS: '65536',
      TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS: '65536',
    },
  ),
});
const { url } = await server.listen();
const ids: string[] = [];
for (let i = 0; i < count; i++)
  ids.push((await server.gateway.request({ toolName: 'mem', toolArgs: { i } })).request.id);
const snapshot = () => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external };
};
const before = snapshot();
if (process.env.SNAP) (await import('node:v8')).writeHeapSnapshot(`${process.env.SNAP}-before.heapsnapshot`);
// The client holds one connection per long-poll and says "parked" once the gateway answered none of them for 2 s.
const client = spawn(
  process.execPath,
  [
    '-e',
    `
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const ids = require('node:fs').readFileSync(0, 'utf8').split('\\n').filter(Boolean);
  for (const id of ids) http.get('${url}/v1/requests/' + id + '?wait=55', { agent, headers: { authorization: 'Bearer m' } }, (r) => r.resume()).on('error', () => {});
  setTimeout(() => process.stdout.write('parked\\n'), 4000);
  setInterval(() => {}, 1000);
`,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
client.stdin!.end(ids.join('\n'));
await new Promise<void>((resolve) => client.stdout!.once('data', () => resolve()));
await new Promise((resolve) => setTimeout(resolve, 1000));
const holding = snapshot();
if (process.env.SNAP) (await import('node:v8')).writeHeapSnapshot(`${process.env.SNAP}-holding.heapsnapshot`);
const connections = await new Promise<number>((resolve) => server.http.getConnections((_e, n) => resolve(n)));
const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer m' } })).text();
process.stdout.write(
  `connections ${connections}; ${metrics
    .split('\n')
    .filter((l) => /wait/.test(l) && !l.startsWith('#'))
    .join('; ')}\n`,
);
const per = (k: keyof typeof before) => ((holding[k] - before[k]) / count / 1024).toFixed(2);
process.stdout.write(
  `${count} parked long-polls; per waiter: rss ${per('rss')} KB, V8 heap ${per('heap')} KB, external ${per('external')} KB\n`,
);
client.kill();
await server.close();
rmSync(dir, { recursive: true, force: true });
