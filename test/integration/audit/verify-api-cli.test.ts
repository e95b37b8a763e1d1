/**
 * The audit chain from the outside: `GET /v1/audit/verify` and `GET /v1/audit/head` (audit:read), and
 * `tollgate audit verify` on the database file, before and after someone edits an event; a database that predates the
 * chain is told how to add it.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;
/** Runs the CLI; resolves with its exit code and output (a non-zero exit is an answer here, not a failure). */
const tollgate = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, TOLLGATE_DB: '' }, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

let dir: string;
let t: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-audit-'));
  t = await startTestServer({ dbPath: join(dir, 'tollgate.db') });
  const { id } = (await (
    await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' } } })
  ).json()) as { id: string };
  await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'deny', approver: 'web:alice', reason: 'freeze' } });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('audit verify and head', () => {
  it('answers an intact chain over the API and publishes its head', async () => {
    const report = (await (await t.api('/v1/audit/verify')).json()) as {
      ok: boolean;
      events: number;
      requests: number;
      head: { event_id: number };
    };
    expect(report).toMatchObject({ ok: true, requests: 1, problem: null });
    const head = (await (await t.api('/v1/audit/head')).json()) as { event_id: number; hash: string };
    expect(head.event_id).toBe(report.head.event_id);
    expect(head.hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await t.api('/v1/audit/verify?from=yesterday')).status).toBe(400);
  });

  it('exits 0 on an intact database and 1 naming the event someone edited', async () => {
    const intact = await tollgate('audit', 'verify', '--db', join(dir, 'tollgate.db'));
    expect(intact).toMatchObject({ code: 0 });
    expect(intact.stdout).toContain('audit trail intact');
    const raw = new Database(join(dir, 'tollgate.db'));
    const {
      id: eventId,
      seq,
      detail,
    } = raw.prepare("SELECT id, seq, detail FROM confirmation_events WHERE type = 'denied'").get() as {
      id: number;
      seq: number;
      detail: string;
    };
    const setDetail = raw.prepare('UPDATE confirmation_events SET detail = ? WHERE id = ?');
    setDetail.run('{"reason":"approved after all"}', eventId);
    try {
      const broken = await tollgate('audit', 'verify', '--db', join(dir, 'tollgate.db'));
      expect(broken.code).toBe(1);
      expect(broken.stdout).toContain(`event ${eventId} (seq ${seq}) was edited`);
      const api = (await (await t.api('/v1/audit/verify')).json()) as { ok: boolean; problem: { event_id: number } };
      expect(api).toMatchObject({ ok: false, problem: { kind: 'edited', event_id: seq } });
    } finally {
      // Put back, so the file's other tests find the trail intact whatever their order.
      setDetail.run(detail, eventId);
      raw.close();
    }
  });

  it('tells a database from before the chain how to add it', async () => {
    const old = join(dir, 'old.db');
    expect((await tollgate('migrate', '--db', old)).code).toBe(0);
    // What the chain's migrations add, taken away again: the shape of a database from before them.
    const raw = new Database(old);
    raw.exec('DROP TABLE chain_checkpoints');
    raw.close();
    const result = await tollgate('audit', 'verify', '--db', old);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('tollgate migrate');
  });
});
