/**
 * @module bench/durable-floor-server
 * The durable floors: a bare node:http server in its own process that does, per call, the one synced commit the
 * gateway's call cannot do without, and nothing else.
 *
 * - `POST /v1/requests`: reads the JSON body and INSERTs one `confirmation_requests` row (the row the gateway's create
 *   writes, built by the store's own mapper) in a commit of its own before answering 201 (`floor.durable_create_rps`).
 * - `GET /v1/requests/<id>?wait=S`: parked (its response kept in a map with its timer), as a long-poll is.
 * - `POST /v1/requests/<id>/decision`: UPDATEs that row to approved, compare-and-set on `status = 'pending'`, in a
 *   commit of its own, then answers the parked long-poll and the decision (`floor.durable_decision_to_resume_ms`).
 *
 * `--db FILE` (SQLite, opened by the gateway's `openDatabase`: WAL, `synchronous = FULL`, the same pragmas) or
 * `--db postgres://…` (a pool of `TOLLGATE_DB_POOL` connections, default 10 like the gateway's; each statement
 * autocommits, and PostgreSQL's default `synchronous_commit = on` flushes the WAL before it returns).
 */
import { createServer, type ServerResponse } from 'node:http';
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

const DEFAULTS: GatewayDefaults = {
  timeoutS: 300,
  channels: [{ type: 'web' }],
  options: ['Approve', 'Deny'],
  onTimeout: 'deny',
};

/** One synced commit per call: the row's INSERT, or its approval (false when the row was not pending). */
interface FloorStore {
  insert(request: ConfirmationRequest): Promise<void> | void;
  approve(id: string, by: string, reason: string, at: Date): Promise<boolean> | boolean;
  close(): Promise<void>;
}

async function sqliteStore(path: string): Promise<FloorStore> {
  const open = openDatabase(path);
  applyMigrations(open);
  const columns = REQUEST_INSERT.names.map((name) => `"${name}"`).join(', ');
  const insert = open.sqlite.prepare(
    `INSERT INTO confirmation_requests (${columns}) VALUES (${REQUEST_INSERT.keys.map((key) => `@${key}`).join(', ')})`,
  );
  const approve = open.sqlite.prepare(
    "UPDATE confirmation_requests SET status = 'approved', allowed = 1, decision_option = 'Approve', responded_at = @at, responded_by = @by, responded_via = 'api', reason = @reason, updated_at = @at WHERE id = @id AND status = 'pending'",
  );
  // Autocommit: each run() is its own transaction, synced to disk (FULL) before it returns.
  return {
    insert: (request) => void insert.run(requestToRow(request)),
    approve: (id, by, reason, at) => approve.run({ id, by, reason, at: at.toISOString() }).changes === 1,
    close: async () => open.close(),
  };
}

async function postgresStore(url: string): Promise<FloorStore> {
  const open = openPostgres(url, { poolSize: Number(process.env.TOLLGATE_DB_POOL ?? 10) });
  await applyPostgresMigrations(open);
  const insert = `INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}`;
  const approve =
    "UPDATE confirmation_requests SET status = 'approved', allowed = true, decision_option = 'Approve', responded_at = $2, responded_by = $3, responded_via = 'api', reason = $4, updated_at = $2 WHERE id = $1 AND status = 'pending'";
  return {
    insert: async (request) => void (await open.pool.query(insert, [requestRecords([request])])),
    approve: async (id, by, reason, at) => (await open.pool.query(approve, [id, at, by, reason])).rowCount === 1,
    close: () => open.close(),
  };
}

const store = db.startsWith('postgres') ? await postgresStore(db) : await sqliteStore(db);
const parked = new Map<string, { res: ServerResponse; timer: NodeJS.Timeout }>();
const ITEM = /^\/v1\/requests\/([^/?]+)(\/decision)?/;

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function park(id: string, res: ServerResponse): void {
  const timer = setTimeout(() => {
    parked.delete(id);
    answer(res, 200, JSON.stringify({ id, status: 'pending' }));
  }, 55_000);
  parked.set(id, { res, timer });
  res.once('close', () => {
    clearTimeout(timer);
    if (parked.get(id)?.res === res) parked.delete(id);
  });
}

async function create(body: string, res: ServerResponse): Promise<void> {
  const input = JSON.parse(body) as {
    tool_name: string;
    tool_args: Record<string, unknown>;
    prompt?: string;
    agent_id?: string;
    session_id?: string;
  };
  const request = newConfirmationRequest(
    {
      toolName: input.tool_name,
      toolArgs: input.tool_args,
      prompt: input.prompt,
      agentId: input.agent_id,
      sessionId: input.session_id,
    },
    DEFAULTS,
    [{ type: 'web' }],
    argsSha256(input.tool_name, input.tool_args),
    new Date(),
  );
  await store.insert(request);
  answer(res, 201, JSON.stringify({ id: request.id, status: request.status }));
}

async function decide(id: string, body: string, res: ServerResponse): Promise<void> {
  const input = JSON.parse(body) as { approver?: string; reason?: string };
  if (!(await store.approve(id, input.approver ?? 'web:floor', input.reason ?? '', new Date())))
    return answer(res, 409, JSON.stringify({ id, status: 'not pending' }));
  const reply = JSON.stringify({ id, status: 'approved' });
  const waiter = parked.get(id);
  if (waiter) {
    parked.delete(id);
    clearTimeout(waiter.timer);
    answer(waiter.res, 200, reply);
  }
  answer(res, 200, reply);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const item = ITEM.exec(req.url ?? '');
    if (req.method === 'GET' && item && req.url!.includes('wait=')) return park(item[1]!, res);
    const body = Buffer.concat(chunks).toString('utf8');
    const work =
      req.method === 'POST' && item?.[2]
        ? decide(item[1]!, body, res)
        : req.method === 'POST' && !item
          ? create(body, res)
          : Promise.resolve(answer(res, 404, '{}'));
    work.catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
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
