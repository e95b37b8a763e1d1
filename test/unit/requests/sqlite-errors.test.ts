import { Database } from '../../../src/stores/sqlite/driver.js';
import { describe, expect, it } from 'vitest';
import { ConflictError, InternalError, NotFoundError, ServiceUnavailableError } from '../../../src/api/errors.js';
import { fromSqliteError, translateSqliteErrors } from '../../../src/stores/sqlite/errors.js';

const sqliteError = (code: string) => new Database.SqliteError(`raw text for ${code}`, code);

describe('SQLite error translation', () => {
  it.each([
    ['SQLITE_CONSTRAINT_UNIQUE', ConflictError, 409, 'tollgate_database_conflict'],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', ConflictError, 409, 'tollgate_database_conflict'],
    ['SQLITE_CONSTRAINT_FOREIGNKEY', NotFoundError, 404, 'tollgate_database_missing_parent'],
    ['SQLITE_BUSY', ServiceUnavailableError, 503, 'tollgate_database_busy'],
    ['SQLITE_BUSY_SNAPSHOT', ServiceUnavailableError, 503, 'tollgate_database_busy'],
    ['SQLITE_LOCKED_SHAREDCACHE', ServiceUnavailableError, 503, 'tollgate_database_busy'],
    ['SQLITE_READONLY_DBMOVED', InternalError, 500, 'tollgate_database_readonly'],
    ['SQLITE_FULL', InternalError, 500, 'tollgate_database_full'],
    ['SQLITE_CORRUPT_INDEX', InternalError, 500, 'tollgate_database_corrupt'],
    ['SQLITE_NOTADB', InternalError, 500, 'tollgate_database_corrupt'],
    ['SQLITE_IOERR_WRITE', InternalError, 500, 'tollgate_database_io'],
    ['SQLITE_CANTOPEN', InternalError, 500, 'tollgate_database_io'],
    ['SQLITE_CONSTRAINT_CHECK', InternalError, 500, 'tollgate_database_error'],
    ['SQLITE_MISUSE', InternalError, 500, 'tollgate_database_error'],
  ] as const)('%s becomes %s', (code, kind, status, tollgateCode) => {
    const raw = sqliteError(code);
    const translated = fromSqliteError(raw) as Error & { status: number; code: string };
    expect(translated).toBeInstanceOf(kind);
    expect(translated).toMatchObject({ status, code: tollgateCode });
    expect(translated.message).not.toMatch(/raw text|SQLITE/);
    expect(translated.cause).toBe(raw);
  });

  it('leaves other errors alone and prefixes messages when asked', () => {
    const bug = new TypeError('x is undefined');
    expect(fromSqliteError(bug)).toBe(bug);
    expect(fromSqliteError(sqliteError('SQLITE_FULL'), { prefix: './data/tollgate.db' })).toMatchObject({
      message: './data/tollgate.db: the disk holding the database is full',
    });
  });

  it('translates what a wrapped object throws, rejects or fails while iterating, and nothing else', async () => {
    const target = {
      value: 42,
      sync: () => {
        throw sqliteError('SQLITE_BUSY');
      },
      async later() {
        throw sqliteError('SQLITE_FULL');
      },
      async *rows() {
        yield 1;
        throw sqliteError('SQLITE_CORRUPT');
      },
      fine: () => 'ok',
    };
    const wrapped = translateSqliteErrors(target);
    expect(wrapped.value).toBe(42);
    expect(wrapped.fine()).toBe('ok');
    expect(() => wrapped.sync()).toThrow(ServiceUnavailableError);
    await expect(wrapped.later()).rejects.toMatchObject({ code: 'tollgate_database_full' });
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const row of wrapped.rows()) seen.push(row);
      })(),
    ).rejects.toMatchObject({ code: 'tollgate_database_corrupt' });
    expect(seen).toEqual([1]);
  });
});
