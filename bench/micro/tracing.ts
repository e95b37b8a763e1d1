/**
 * @module bench/micro/tracing
 * `tsx bench/micro/tracing.ts`: CPU per gated call (file + decide, each through the gateway in process, on SQLite) with
 * tracing off, and on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (point it at a collector, or at any server that answers
 * 200: spans are exported for real). Also the cost of one span wrapper alone with no SDK. Not part of `npm run bench`;
 * the evidence behind "Tracing" in docs/production.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';
import { traced } from '../../src/telemetry/tracing.js';

const CALLS = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 4000;
const dir = mkdtempSync(join(tmpdir(), 'tollgate-tracing-'));
const otel = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('OTEL_')));
const server = await createServer({
  config: loadConfig(
    { port: 0, db: join(dir, 'bench.db') },
    { TOLLGATE_API_TOKENS: 't', LOG_LEVEL: 'silent', ...otel },
  ),
});
const { gateway } = server;

/** One gated call: filed, then approved over the API (no card to deliver: the web inbox reads the database). */
async function gatedCall(i: number): Promise<void> {
  const { request } = await gateway.request({ toolName: 'bench', toolArgs: { i }, channels: [{ type: 'web' }] });
  const outcome = await gateway.decide({
    requestId: request.id,
    decision: 'approve',
    actor: { channel: 'web', userId: 'bench' },
    via: 'api',
  });
  if (!outcome.ok) throw new Error(outcome.message);
}

async function cpu(label: string, n: number, fn: (i: number) => Promise<unknown>, perRun = 1): Promise<void> {
  // CPU time, not wall time: other processes on the machine barely move it.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  const c = process.cpuUsage(c0);
  const ops = n * perRun;
  console.log(
    `${label}: ${((c.user + c.system) / ops).toFixed(2)} µs CPU/op, ${(((performance.now() - t0) / ops) * 1000).toFixed(2)} µs wall/op`,
  );
}

try {
  const mode = Object.keys(otel).length ? `tracing on (${Object.keys(otel).join(', ')})` : 'tracing off';
  await cpu(`warm-up, ${mode}`, 1000, gatedCall);
  await cpu(`gated call (file + decide), ${mode}`, CALLS, gatedCall);
  const body = () => Promise.resolve(1);
  if (!Object.keys(otel).length) {
    await cpu('bare async function', 200_000, body);
    await cpu('the same in traced() with no SDK', 200_000, () =>
      traced('bench', { 'tollgate.request.id': 'x' }, {}, body),
    );
  } else {
    // Batches under the span processor's queue (2048), each flushed: the export's serialization and HTTP are counted.
    const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as unknown as {
      forceFlush(): Promise<void>;
    };
    await cpu(
      'one span through traced(), exported (per span)',
      10,
      async () => {
        for (let i = 0; i < 2000; i++) await traced('bench', { 'tollgate.request.id': 'x' }, {}, body);
        await provider.forceFlush();
      },
      2000,
    );
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
