/**
 * @module bench/micro/hook-http
 * `tsx bench/micro/hook-http.ts [N]`: the gateway's CPU per `POST /v1/hooks/claude-code` over real HTTP (127.0.0.1,
 * one keep-alive connection), for a PreToolUse an allow rule answers, and per `POST /v1/requests` a rule answers
 * final: what `hook-route.ts` leaves out (parsing, auth, routing, the answer's serialization and write). The gateway
 * runs in this process and the client in a child, so `process.cpuUsage` counts the gateway's side alone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createServer } from '../../src/server.js';

const n = Number(process.argv[2] ?? 2000);
const TOKEN = 'micro-token';

/** The client: `n` calls one after another on one connection, then "done"; the route and body builder come in argv. */
const CLIENT = `
const http = require('node:http');
const [url, token, n, kind] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const body = (i) => kind === 'hook'
  ? { hook_event_name: 'PreToolUse', session_id: 'bench', tool_use_id: 'toolu_' + process.pid + '_' + i, tool_name: 'Read', tool_input: { file_path: '/srv/app/README-' + i + '.md' }, cwd: '/srv/app' }
  : { tool_name: 'Read', tool_args: { file_path: '/srv/app/README-' + i + '.md' }, agent_id: 'bench', idempotency_key: 'k_' + process.pid + '_' + i };
const path = kind === 'hook' ? '/v1/hooks/claude-code' : '/v1/requests';
const one = (i) => new Promise((resolve, reject) => {
  const data = JSON.stringify(body(i));
  const req = http.request(url + path, { method: 'POST', agent, headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
    let text = '';
    res.on('data', (d) => (text += d));
    res.on('end', () => (res.statusCode < 300 && text.includes(kind === 'hook' ? '"allow"' : '"approved"') ? resolve() : reject(new Error(res.statusCode + ' ' + text))));
  });
  req.on('error', reject);
  req.end(data);
});
(async () => {
  for (let i = 0; i < Number(n); i++) await one(i);
  process.stdout.write('done');
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Runs the client for `count` calls of `kind`; resolves with the gateway's CPU ms per call. */
async function gatewayCpuPerCall(url: string, kind: 'hook' | 'requests', count: number): Promise<number> {
  const start = process.cpuUsage();
  const child = spawn(process.execPath, ['-e', CLIENT, url, TOKEN, String(count), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const used = process.cpuUsage(start);
  if (code !== 0 || out !== 'done') throw new Error(`client exited ${code}`);
  return (used.user + used.system) / 1000 / count;
}

const dir = mkdtempSync(join(tmpdir(), 'tollgate-micro-hook-http-'));
const config = join(dir, 'policy.yaml');
writeFileSync(config, 'policies:\n  - name: reads\n    match: { tool: [Read] }\n    decision: allow\n');
// As the bench's gateway runs: limits off (these calls are one token's, far over the default budget).
const env = { TOLLGATE_API_TOKENS: TOKEN, TOLLGATE_RATE_LIMIT: '0', TOLLGATE_RATE_LIMIT_DECISIONS: '0' };
const server = await createServer({
  config: loadConfig({ port: 0, host: '127.0.0.1', db: join(dir, 'micro.db'), config }, env),
  logger: pino({ level: 'silent' }),
});
const { url } = await server.listen();
try {
  // Warm up (JIT, statement caches, a full same-call window of final rows); the child's start-up is outside the gateway.
  await gatewayCpuPerCall(url, 'hook', 300);
  await gatewayCpuPerCall(url, 'requests', 300);
  const hook = await gatewayCpuPerCall(url, 'hook', n);
  const requests = await gatewayCpuPerCall(url, 'requests', n);
  process.stdout.write(
    `gateway CPU: ${hook.toFixed(3)} ms per hook call (POST /v1/hooks/claude-code), ${requests.toFixed(3)} ms per rule-final POST /v1/requests, n=${n}\n`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
