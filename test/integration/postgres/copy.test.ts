/**
 * `tollgate migrate --from <sqlite file> --to <postgres URL>`: a gateway's SQLite database moved to PostgreSQL serves
 * the same requests, events and API tokens (and, with the key file it names, the same verdict tokens), numbers new
 * rows after the copied ones, and a second run copies nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFilePath } from '../../../src/signing/key-file.js';
import { KEY_IN_DATABASE_WARNING } from '../../../src/signing/keys.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from './fresh-database.js';

const BIN = fileURLToPath(new URL('../../../bin/tollgate.js', import.meta.url));
let database: FreshDatabase;
let sqlite: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'tollgate-copy-'));
const sqlitePath = join(dir, 'tollgate.db');

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await sqlite?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function migrate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'migrate', ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function json(server: TestServer, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await server.api(path, body === undefined ? {} : { body });
  expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

describe('tollgate migrate --from --to', () => {
  it('moves requests, events, cards and tokens from SQLite to PostgreSQL', async () => {
    sqlite = await startTestServer({ dbPath: sqlitePath });
    const quorum = await json(sqlite, '/v1/requests', {
      tool_name: 'pay_invoice',
      tool_args: { invoice: 'INV-7', amount: 1200 },
      required_approvals: 2,
      idempotency_key: 'copy-1',
    });
    await json(sqlite, `/v1/requests/${String(quorum.id)}/decision`, { decision: 'approve', approver: 'web:alice' });
    await json(sqlite, `/v1/requests/${String(quorum.id)}/decision`, {
      decision: 'approve',
      approver: 'web:bob',
      reason: 'ok',
    });
    const pending = await json(sqlite, '/v1/requests', {
      tool_name: 'deploy',
      tool_args: { env: 'prod' },
      metadata: { ticket: 7 },
    });
    const token = await json(sqlite, '/v1/tokens', {
      name: 'billing-agent',
      scopes: ['request:create', 'request:read'],
    });
    const ids = [String(quorum.id), String(pending.id)];
    const before = await Promise.all(ids.map((id) => json(sqlite, `/v1/requests/${id}`)));
    const eventsBefore = await Promise.all(ids.map((id) => sqlite.store.events(id)));
    await sqlite.close();

    const copied = await migrate('--from', sqlitePath, '--to', database.url);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toContain(
      `copied 2 requests, ${eventsBefore.flat().length} events, 2 cards, 1 API tokens and 0 grants`,
    );

    // The signing key is a file beside the SQLite database, not a row: migrate says which file the replicas should
    // name, and with it the copied requests carry the same verdict tokens.
    const keyFile = keyFilePath(sqlitePath);
    expect(copied.stdout).toContain(`TOLLGATE_SIGNING_KEY_FILE=${keyFile}`);
    expect(copied.stdout).toContain(KEY_IN_DATABASE_WARNING);
    const pg = await startTestServer({ dbPath: database.url, env: { TOLLGATE_SIGNING_KEY_FILE: keyFile } });
    try {
      for (const [i, id] of ids.entries()) {
        expect(await json(pg, `/v1/requests/${id}`)).toEqual(before[i]);
        expect(await pg.store.events(id)).toEqual(eventsBefore[i]);
      }
      // The copied token still authenticates (only its hash was copied) and files as itself.
      const asAgent = await fetch(`${pg.url}/v1/requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${String(token.secret)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool_name: 'search', tool_args: {} }),
      });
      expect(asAgent.status).toBe(201);
      expect(await asAgent.json()).toMatchObject({ filed_by: 'billing-agent' });
      const again = await pg.api('/v1/requests', {
        body: { tool_name: 'pay_invoice', tool_args: { invoice: 'INV-7', amount: 1200 }, idempotency_key: 'copy-1' },
      });
      expect(again.status).toBe(200);
      const fresh = await json(pg, '/v1/requests', { tool_name: 'deploy', tool_args: { env: 'staging' } });
      const [created] = await pg.store.events(String(fresh.id));
      expect(created!.id).toBeGreaterThan(Math.max(...eventsBefore.flat().map((e) => e.id)));
      // The copied events were chained on arrival, so the PostgreSQL trail verifies as a whole.
      expect(await json(pg, '/v1/audit/verify')).toMatchObject({ ok: true, problem: null, requests: 4 });
    } finally {
      await pg.close();
    }

    const rerun = await migrate('--from', sqlitePath, '--to', database.url);
    expect(rerun.stdout).toContain('copied 0 requests, 0 events, 0 cards, 0 API tokens and 0 grants');
  });

  it('refuses a missing source file without creating it', async () => {
    const result = await migrate('--from', '/nonexistent/dir/tollgate.db', '--to', database.url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no SQLite file at /nonexistent/dir/tollgate.db');
  });
});
