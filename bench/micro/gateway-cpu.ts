/**
 * @module bench/micro/gateway-cpu
 * CPU per `gateway.request` and per `gateway.decide` in one process with no HTTP around it (as `decision.ts`), for
 * any built tree: `--baseline` compiles this file next to each revision's build (`<build>/gateway-cpu.mjs`) and runs
 * it there, so each process loads its own revision's gateway (`./src/server.js`, `./src/config.js`, found beside this
 * file at run time) and nothing else. Prints one line of JSON: `{create_ms, decide_ms, create_bytes, decide_bytes, n}` (bytes: written per call).
 *
 * `node <build>/gateway-cpu.mjs N DIR [CALL]`: N creates awaited one at a time, then N decisions, on `DIR/micro.db`.
 * `CALL` picks what is filed, for the call summary's cost (docs/summaries.md): `plain` (default: a tool no summarizer
 * reads), `shell` (a `Bash` pipeline, parsed by tree-sitter-bash) or `edit` (a Claude Code `Edit`, diffed by jsdiff);
 * each call's arguments differ, so nothing is cached.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Gateway {
  start(): Promise<void>;
  request(input: Record<string, unknown>): Promise<{ request: { id: string } }>;
  decide(event: Record<string, unknown>): Promise<unknown>;
}

const n = Number(process.argv[2] ?? 2000);
const dir = process.argv[3];
const kind = process.argv[4] ?? 'plain';
if (!dir || !Number.isInteger(n) || n < 1 || !['plain', 'shell', 'edit'].includes(kind))
  throw new Error('usage: gateway-cpu.mjs N DIR [plain|shell|edit]');
const CALLS: Record<string, (i: number) => Record<string, unknown>> = {
  plain: (i) => ({ toolName: 'bench.deploy', toolArgs: { service: 'api', build: i } }),
  shell: (i) => ({
    toolName: 'Bash',
    context: { cwd: '/repo' },
    toolArgs: { command: `git fetch origin && npm ci --silent | tee build-${i}.log && rm -rf dist/tmp-${i}` },
  }),
  edit: (i) => ({
    toolName: 'Edit',
    context: { cwd: '/repo' },
    toolArgs: {
      file_path: `/repo/src/module-${i}.ts`,
      old_string: `export const limit = ${i};\nexport const name = 'old';\n`,
      new_string: `export const limit = ${i + 1};\nexport const name = 'new';\nexport const extra = true;\n`,
    },
  }),
};
// Resolved beside the compiled file, in the build it was written into.
const { createServer } = (await import(new URL('./src/server.js', import.meta.url).href)) as {
  createServer(o: unknown): Promise<{ gateway: Gateway; close(): Promise<void> }>;
};
const { loadConfig } = (await import(new URL('./src/config.js', import.meta.url).href)) as {
  loadConfig(flags: unknown, env?: Record<string, string | undefined>): unknown;
};
const server = await createServer({
  config: loadConfig({ port: 0, db: join(dir, 'micro.db') }, { ...process.env, LOG_LEVEL: 'silent' }),
});
await server.gateway.start();

/**
 * Bytes this process has written through system calls (`wchar` of /proc/self/io; null off Linux): what the commits
 * write to the WAL, which no load on the machine changes, unlike the CPU time it costs.
 */
function written(): number | null {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? NaN) || null;
  } catch {
    return null;
  }
}

const bytes: number[] = [];
/** Milliseconds of this process's CPU (every thread) per call of `fn(0)` … `fn(count - 1)`, awaited one at a time. */
async function cpuMsPerCall(count: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  const before = written();
  for (let i = 0; i < count; i++) await fn(i);
  const used = process.cpuUsage(start);
  const after = written();
  bytes.push(before === null || after === null ? NaN : (after - before) / count);
  return (used.user + used.system) / 1000 / count;
}

const ids: string[] = [];
const create = (i: number) =>
  server.gateway.request({ ...CALLS[kind]!(i), timeoutS: 600 }).then((r) => ids.push(r.request.id));
// A warm-up of a tenth: the first calls compile the path; both revisions get the same.
const warm = Math.max(1, Math.floor(n / 10));
await cpuMsPerCall(warm, (i) => create(n + i));
const decide = (i: number) =>
  server.gateway.decide({
    requestId: ids[i]!,
    decision: 'approve',
    reason: 'bench',
    actor: { channel: 'web', userId: 'bench-approver' },
    via: 'api',
  });
await cpuMsPerCall(warm, decide);
ids.length = 0;
const createMs = await cpuMsPerCall(n, create);
const decideMs = await cpuMsPerCall(n, decide);
const [createBytes, decideBytes] = bytes.slice(-2).map(Math.round);
process.stdout.write(
  `${JSON.stringify({ create_ms: createMs, decide_ms: decideMs, create_bytes: createBytes, decide_bytes: decideBytes, n })}\n`,
);
// Not awaited at the top level: a revision whose close leaves nothing pending on the loop would end the process with
// an unsettled await (exit 13) before the figures count; the timer keeps it alive until close has had its chance.
setTimeout(() => process.exit(0), 3000);
void server.close().finally(() => process.exit(0));
