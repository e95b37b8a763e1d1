/**
 * @module bench/durable-floor-server
 * The durable floor: a bare node:http server in its own process that, for every POST, reads the JSON body and INSERTs
 * one `confirmation_requests` row (the row the gateway's create writes, built by the store's own mapper) in a commit
 * of its own before answering 201. What one commit per request costs on this machine, so the gateway's create (which
 * groups commits) can be judged against it.
 *
 * `--db FILE` (SQLite, opened by the gateway's `openDatabase`: WAL, `synchronous = FULL`, the same pragmas) or
 * `--db postgres://…` (a pool of `TOLLGATE_DB_POOL` connections, default 10 like the gateway's; each INSERT autocommits).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { argsSha256 } from '../src/requests/args-hash.js';
import { newConfirmationRequest, type GatewayDefaults } from '../src/requests/new-request.js';
import { applyPostgresMigrations, openPostgres } from '../src/stores/postgres/database.js';
import { REQUEST_INSERT, requestRecords } from '../src/stores/postgres/rows.js';
import { applyMigrations, openDatabase } from '../src/stores/sqlite/database.js';
import { requestToRow } from '../src/stores/sqlite/rows.js';
import type { ConfirmationRequest } from '../src/requests/types.js';

const db = process.argv[process.argv.indexOf('--db') + 1];
if (!db || !process.argv.includes('--db')) throw new Error('usage: durable-floor-server.ts --db FILE|postgres://…');

const DEFAULTS: GatewayDefaults = { timeoutS: 300, channels: [{ type: 'web' }], options: ['Approve', 'Deny'], onTimeout: 'deny' };

/** One commit of one row. */
type Insert = (request: ConfirmationRequest) => Promise<void> | void;

async function sqliteInsert(path: string): Promise<{ insert: Insert; close(): Promise<void> }> {
  const open = openDatabase(path);
  applyMigrations(open);
  const columns = REQUEST_INSERT.names.map((name) => `"${name}"`).join(', ');
  const statement = open.sqlite.prepare(`INSERT INTO confirmation_requests (${columns}) VALUES (${REQUEST_INSERT.keys.map((key) => `@${key}`).join(', ')})`);
  // Autocommit: each run() is its own transaction, synced to disk (FULL) before it returns.
  return { insert: (request) => void statement.run(requestToRow(request)), close: async () => open.close() };
}

async function postgresInsert(url: string): Promise<{ insert: Insert; close(): Promise<void> }> {
  const open = openPostgres(url, { poolSize: Number(process.env.TOLLGATE_DB_POOL ?? 10) });
  await applyPostgresMigrations(open);
  const sql = `INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}`;
  return { insert: async (request) => void (await open.pool.query(sql, [requestRecords([request])])), close: () => open.close() };
}

const store = db.startsWith('postgres') ? await postgresInsert(db) : await sqliteInsert(db);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tool_name: string; tool_args: Record<string, unknown>; prompt?: string; agent_id?: string; session_id?: string };
        const request = newConfirmationRequest(
          { toolName: body.tool_name, toolArgs: body.tool_args, prompt: body.prompt, agentId: body.agent_id, sessionId: body.session_id },
          DEFAULTS,
          [{ type: 'web' }],
          argsSha256(body.tool_name, body.tool_args),
          new Date(),
        );
        await store.insert(request);
        const reply = JSON.stringify({ id: request.id, status: request.status });
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
        res.end(reply);
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      }
    })();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void store.close().then(() => process.exit(0)));
});
