/**
 * {@link SharedMarks} on both dialects: SQLite's (`stores/sqlite/marks.ts`, web sign-outs kept across a restart) and
 * PostgreSQL's (shared by replicas) answer alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type OpenPostgres } from '../../src/stores/postgres/database.js';
import { PostgresMarks } from '../../src/stores/postgres/marks.js';
import { applyMigrations, openDatabase, type OpenDatabase } from '../../src/stores/sqlite/database.js';
import { SqliteMarks } from '../../src/stores/sqlite/marks.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';
import { freshDatabase, type FreshDatabase } from '../integration/postgres/fresh-database.js';

let pg: FreshDatabase;
let pool: OpenPostgres;
let sqlite: OpenDatabase;
const dir = mkdtempSync(join(tmpdir(), 'tollgate-marks-'));
beforeAll(async () => {
  pg = await freshDatabase({ migrate: true });
  pool = openPostgres(pg.url, { poolSize: 2 });
  sqlite = openDatabase(join(dir, 'marks.db'));
  applyMigrations(sqlite);
});
afterAll(async () => {
  sqlite?.sqlite.close();
  await pool?.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['sqlite', () => new SqliteMarks(sqlite.sqlite)],
  ['postgres', () => new PostgresMarks(pool)],
] as const)('SharedMarks on %s', (_dialect, make: () => SharedMarks) => {
  const hour = 3_600_000;

  it('adds a mark once while it lives, sees it until it expires, and lets one taker spend it', async () => {
    const marks = make();
    const now = new Date();
    const until = new Date(now.getTime() + hour);
    expect(await marks.add('signed_out', 'session-a', until)).toBe(true);
    expect(await marks.add('signed_out', 'session-a', until)).toBe(false);
    expect(await marks.has('signed_out', 'session-a', now)).toBe(true);
    // Kinds are apart: the same key under another kind is another mark.
    expect(await marks.has('login_link', 'session-a', now)).toBe(false);
    expect(await marks.has('signed_out', 'session-a', new Date(until.getTime() + 1))).toBe(false);
    expect(await marks.take('signed_out', 'session-a', now)).toBe(true);
    expect(await marks.take('signed_out', 'session-a', now)).toBe(false);
    expect(await marks.has('signed_out', 'session-a', now)).toBe(false);
  });

  it('replaces an expired mark with the same key', async () => {
    const marks = make();
    const now = new Date();
    expect(await marks.add('login_link', 'link-b', new Date(now.getTime() - 1000))).toBe(true);
    expect(await marks.has('login_link', 'link-b', now)).toBe(false);
    expect(await marks.add('login_link', 'link-b', new Date(now.getTime() + hour))).toBe(true);
    expect(await marks.has('login_link', 'link-b', now)).toBe(true);
  });
});
