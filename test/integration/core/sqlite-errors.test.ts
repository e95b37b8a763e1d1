/**
 * Real SQLite failures — a read-only connection, a file that is not a database, a held write lock, a unique
 * violation, an error drizzle wraps — come out of the store and the database helpers as tollgate errors with a
 * namespaced code and words an operator can act on, never SQLite's text.
 */
import { Database, type SqliteConnection } from '../../../src/stores/sqlite/driver.js';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InternalError, ServiceUnavailableError, TollgateError } from '../../../src/api/errors.js';
import {
  applyMigrations,
  openDatabase,
  registerFunctions,
  type OpenDatabase,
} from '../../../src/stores/sqlite/database.js';
import { fromSqliteError, withSqliteErrors } from '../../../src/stores/sqlite/errors.js';
import { SqliteConfirmationStore } from '../../../src/stores/sqlite/store.js';
import { file, newRequest, vote } from '../../contracts/store-fixtures.js';

let dir: string;
let path: string;
const opened: { close(): void }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-dberr-'));
  path = join(dir, 'tollgate.db');
  const open = openDatabase(path);
  applyMigrations(open);
  open.close();
});
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
  rmSync(dir, { recursive: true, force: true });
});

function track<T extends { close(): void }>(c: T): T {
  opened.push(c);
  return c;
}

/** An OpenDatabase over an existing connection (openDatabase refuses read-only use on purpose). */
function wrap(sqlite: SqliteConnection): OpenDatabase {
  registerFunctions(sqlite);
  return { sqlite, db: drizzle(sqlite), close: () => sqlite.close() } as unknown as OpenDatabase;
}

/** The error `promise` rejects with, checked for a code and for SQLite's own words. */
async function failure(promise: Promise<unknown>): Promise<TollgateError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TollgateError);
  expect((error as Error).message).not.toMatch(/SQLITE|sqlite|constraint failed/);
  return error as TollgateError;
}

describe('SQLite errors become tollgate errors', () => {
  it('a read-only database is a 500 that says to check permissions', async () => {
    const store = new SqliteConfirmationStore(wrap(track(new Database(path, { readonly: true }))));
    const error = await failure(store.create(newRequest(), []));
    expect(error).toBeInstanceOf(InternalError);
    expect(error).toMatchObject({
      status: 500,
      code: 'tollgate_database_readonly',
      message: expect.stringMatching(/read-only.*permissions/),
    });
    expect((error.cause as { code: string }).code).toMatch(/^SQLITE_READONLY/);
    expect(await store.list({})).toEqual({ items: [], nextCursor: null });
  });

  it('a held write lock is a retryable 503', async () => {
    const writer = new SqliteConfirmationStore(track(openDatabase(path, { busyTimeoutMs: 0 })));
    const request = await file(writer);
    const holder = track(new Database(path));
    holder.exec('BEGIN IMMEDIATE');
    const error = await failure(writer.decide(request.id, vote('web:alice')));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'tollgate_database_busy', retryAfterS: 1 });
    holder.exec('ROLLBACK');
    expect(await writer.get(request.id)).toMatchObject({ status: 'pending' });
  });

  it('a file that is not a database fails at start-up naming the file', async () => {
    const garbage = join(dir, 'notes.db');
    writeFileSync(garbage, 'these are my notes, not a database '.repeat(200));
    const error = await failure(Promise.resolve().then(() => openDatabase(garbage)));
    expect(error).toMatchObject({ code: 'tollgate_database_corrupt', message: expect.stringContaining(garbage) });
  });

  it('a unique violation is a conflict in the words the caller gives', async () => {
    const db = track(new Database(path));
    const insert = db.prepare(
      "INSERT INTO api_tokens (id, name, secret_sha256, scopes, created_at) VALUES (?, 'bridge', ?, '[]', '2026-01-01T00:00:00.000Z')",
    );
    insert.run('t1', 'sha-1');
    const error = await failure(
      Promise.resolve().then(() =>
        withSqliteErrors(() => insert.run('t2', 'sha-2'), { conflict: 'a token named "bridge" exists already' }),
      ),
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({
      status: 409,
      message: 'a token named "bridge" exists already',
      code: 'tollgate_database_conflict',
    });
  });

  it('sees through drizzle, whose wrapper would print the SQL and its parameters', () => {
    const readOnly = drizzle(track(new Database(path, { readonly: true })));
    let thrown: unknown;
    try {
      readOnly.run(sql`DELETE FROM confirmation_requests WHERE id = ${'secret-param'}`);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(fromSqliteError(thrown)).toMatchObject({ code: 'tollgate_database_readonly' });
    const other = new TypeError('not a database problem');
    expect(fromSqliteError(other)).toBe(other);
  });
});
