/**
 * A PostgreSQL database from before the fifth stage, upgraded for real: migrated only up to 0022 (the chain trigger and
 * its advisory lock in place), written to as that tollgate wrote (rows inserted, the trigger chaining each event),
 * then migrated to the end (0023 drops the trigger and records the newest event as `legacy`). The first gateway that
 * holds the key closes the older events under a signed `legacy` checkpoint (n = 1): verify checks them by the first
 * chain's rules and the events after by receipts; an edit of an older event stays named at a later start.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { argsSha256 } from '../../../src/requests/args-hash.js';
import { migrationsFolder } from '../../../src/stores/migrations-folder.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, withClient, type FreshDatabase } from './fresh-database.js';

let db: FreshDatabase;
let dir: string;
let t: TestServer | undefined;
beforeAll(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-upgrade-'));
});
afterAll(async () => {
  await t?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The migrations folder as a tollgate of before the fifth stage shipped it: up to 0022. */
function olderMigrations(): string {
  const folder = join(dir, 'postgres');
  cpSync(migrationsFolder('postgres'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
  for (const entry of journal.entries.filter((e) => e.idx >= 23)) {
    unlinkSync(join(folder, `${entry.tag}.sql`));
    rmSync(join(folder, 'meta', `${String(entry.idx).padStart(4, '0')}_snapshot.json`), { force: true });
  }
  journal.entries = journal.entries.filter((e) => e.idx < 23);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

const migrateWith = async (migrationsFolder: string) => {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.end();
  }
};

const verify = async () =>
  (await (await t!.api('/v1/audit/verify')).json()) as {
    ok: boolean;
    events: number;
    legacy: { size: number } | null;
    problem: { kind: string; message: string } | null;
  };

it('closes the events the chain trigger wrote under a signed legacy checkpoint, and witnesses the new ones', async () => {
  await migrateWith(olderMigrations());
  // As the older tollgate wrote: a request, its created and approved events, chained by the trigger.
  await withClient(db.url, async (c) => {
    for (const [i, tool] of ['deploy', 'rm'].entries()) {
      const id = `019a0000-0000-7000-8000-00000000000${i}`;
      const args = { env: 'prod' };
      const at = new Date(Date.now() - 60_000 + i * 1000).toISOString();
      await c.query(
        `INSERT INTO confirmation_requests (id, status, tool_name, tool_args, options, metadata, channels, approvers, required_approvals, on_timeout, args_sha256, nonce, created_at, expires_at, updated_at)
         VALUES ($1, 'pending', $2, $3, '["Approve","Deny"]', '{}', '[{"type":"web"}]', '[]', 1, 'deny', $4, 'n', $5, $6, $5)`,
        [id, tool, JSON.stringify(args), argsSha256(tool, args), at, new Date(Date.now() + 3600_000).toISOString()],
      );
      await c.query(
        `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) VALUES ($1, 'created', NULL, NULL, '{}', $2)`,
        [id, at],
      );
    }
    const hashed = await c.query(`SELECT count(*)::int AS n FROM confirmation_events WHERE hash IS NOT NULL`);
    expect(hashed.rows[0]).toEqual({ n: 2 });
  });
  await migrateWith(migrationsFolder('postgres'));

  t = await startTestServer({ dbPath: db.url });
  const created = await t.api('/v1/requests', { body: { tool_name: 'new', tool_args: {}, approvers: ['web:bob'] } });
  expect(created.status).toBe(201);
  const report = await verify();
  expect(report).toMatchObject({ ok: true, legacy: { size: 2 }, problem: null });
  expect(report.events).toBeGreaterThanOrEqual(3);

  // An older event edited: named at the next start, and nothing re-hashes it.
  await t.close();
  await withClient(db.url, (c) =>
    c.query(
      `UPDATE confirmation_events SET actor = 'web:mallory' WHERE request_id = '019a0000-0000-7000-8000-000000000000'`,
    ),
  );
  t = await startTestServer({ dbPath: db.url });
  expect((await verify()).problem).toMatchObject({ kind: 'edited' });
});
