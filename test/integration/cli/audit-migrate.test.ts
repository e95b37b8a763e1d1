import { Database } from '../../../src/stores/sqlite/driver.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const run = promisify(execFile);
const BIN = new URL('../../../bin/tollgate.js', import.meta.url).pathname;
const tollgate = (...args: string[]) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, TOLLGATE_DB: '' } });

let dir: string;
let t: TestServer;
const ids: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-cli-'));
  t = await startTestServer({ dbPath: join(dir, 'audit.db') });
  for (const tool of ['pay_invoice', 'rm_rf', 'pay_invoice'])
    ids.push(
      (
        (await (await t.api('/v1/requests', { body: { tool_name: tool, agent_id: 'billing' } })).json()) as {
          id: string;
        }
      ).id,
    );
  await t.api(`/v1/requests/${ids[1]}/decision`, {
    body: { decision: 'deny', approver: 'web:alice', reason: 'never' },
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tollgate migrate', () => {
  it('creates the three auditor tables in a new file', async () => {
    const path = join(dir, 'fresh.db');
    const { stdout } = await tollgate('migrate', '--db', path);
    expect(stdout).toContain(`migrations applied to ${path}`);
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("select name from sqlite_master where type = 'table' order by name").all() as {
      name: string;
    }[];
    db.close();
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['channel_messages', 'confirmation_events', 'confirmation_requests']),
    );
  });
});

describe('tollgate audit and plain SQL', () => {
  it('answers an auditor with the same rows as SQL', async () => {
    const db = new Database(t.dbPath, { readonly: true });
    const denied = db
      .prepare("select id, tool_name, responded_by, reason, allowed from confirmation_requests where status = 'denied'")
      .all();
    const events = db
      .prepare('select type, actor from confirmation_events where request_id = ? order by id')
      .all(ids[1]);
    db.close();
    expect(denied).toEqual([
      { id: ids[1], tool_name: 'rm_rf', responded_by: 'web:alice', reason: 'never', allowed: 0 },
    ]);
    expect(events).toEqual([
      { type: 'created', actor: null },
      { type: 'delivered', actor: null },
      { type: 'denied', actor: 'web:alice' },
    ]);

    const ndjson = await tollgate('audit', '--db', t.dbPath, '--status', 'denied', '--format', 'ndjson');
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual([ids[1]]);
    const table = await tollgate('audit', '--db', t.dbPath, '--tool', 'pay_invoice');
    expect(table.stdout.split('\n')[0]).toMatch(/^created_at\s+id\s+status\s+tool_name/);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    const timeline = await tollgate('audit', '--db', t.dbPath, '--events', ids[1]!);
    expect(
      timeline.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { type: string }).type),
    ).toEqual(['created', 'delivered', 'denied']);
  });

  it('rejects a bad flag with a usage message and exit code 2', async () => {
    const error = (await tollgate('audit', '--db', t.dbPath, '--format', 'xml').catch((e: unknown) => e)) as {
      code: number;
      stderr: string;
    };
    expect(error.code).toBe(2);
    expect(error.stderr).toMatch(/--format must be table, csv or ndjson/);
  });
});
