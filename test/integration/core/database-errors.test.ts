/**
 * Real database failures reach API callers as tollgate problems — never SQLite's own words — and change nothing.
 * A second connection to the gateway's file provokes them: it holds the write lock (busy) or installs a trigger
 * that aborts a write halfway through its transaction.
 */
import { Database, type SqliteConnection } from '../../../src/stores/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let t: TestServer;
let other: SqliteConnection;

beforeEach(async () => {
  t = await startTestServer();
  other = new Database(t.dbPath);
});
afterEach(async () => {
  other.close();
  await t.close();
});

/** The problem document of `res`, checked for shape and for anything SQLite would have said. */
async function problem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const text = await res.text();
  expect(text).not.toMatch(/sqlite|SQLITE_|constraint failed|RAISE|trigger|confirmation_(requests|events)/i);
  const body = JSON.parse(text) as { status: number; type: string; detail: string };
  expect(body).toMatchObject({ status, type: `https://tollgate.dev/problems/${code}` });
  return body;
}

const file = () => t.api('/v1/requests', { body: { tool_name: 'pay_invoice', tool_args: { invoice: 'INV-7' } } });
const count = () =>
  (other.prepare('SELECT count(*) FROM confirmation_requests').pluck().get() as number) +
  (other.prepare('SELECT count(*) FROM confirmation_events').pluck().get() as number);

describe('database errors through the API', () => {
  it(
    'answers a busy database with a retryable 503, writes nothing, and works once the lock is gone',
    { timeout: 20_000 },
    async () => {
      other.exec('BEGIN IMMEDIATE');
      const body = await problem(
        await file().then((res) => (expect(res.headers.get('retry-after')).toBe('1'), res)),
        503,
        'tollgate_database_busy',
      );
      expect(body.detail).toMatch(/busy.*retry/);
      other.exec('ROLLBACK');
      expect(count()).toBe(0);
      expect((await file()).status).toBe(201);
    },
  );

  it('answers a write the database aborts halfway with a 500 that says where to look, and rolls the request back', async () => {
    other.exec(
      "CREATE TRIGGER refuse_created BEFORE INSERT ON confirmation_events WHEN NEW.type = 'created' BEGIN SELECT RAISE(ABORT, 'SQLITE says no'); END",
    );
    const body = await problem(await file(), 500, 'tollgate_database_error');
    expect(body.detail).toMatch(/database.*gateway log/);
    expect(count()).toBe(0);
    other.exec('DROP TRIGGER refuse_created');
    expect((await file()).status).toBe(201);
  });

  it('leaves a request pending, with no vote recorded, when its decision cannot be written', async () => {
    const { id } = (await (await file()).json()) as { id: string };
    other.exec(
      "CREATE TRIGGER refuse_verdict BEFORE UPDATE OF status ON confirmation_requests BEGIN SELECT RAISE(ABORT, 'SQLITE says no'); END",
    );
    const decide = () => t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
    await problem(await decide(), 500, 'tollgate_database_error');
    const row = (await (await t.api(`/v1/requests/${id}`)).json()) as { status: string };
    expect(row.status).toBe('pending');
    expect(
      other
        .prepare("SELECT count(*) FROM confirmation_events WHERE request_id = ? AND type = 'approved'")
        .pluck()
        .get(id),
    ).toBe(0);
    other.exec('DROP TRIGGER refuse_verdict');
    expect(((await (await decide()).json()) as { status: string }).status).toBe('approved');
  });
});
