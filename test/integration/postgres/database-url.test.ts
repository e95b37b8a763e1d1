/**
 * Reading `--db` / `TOLLGATE_DB`: which dialect a value names, the refusal of unknown schemes (before anything is
 * created), and the password never shown.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { databaseDialect, redactUrl } from '../../../src/stores/database-url.js';

describe('database URLs', () => {
  it.each([
    ['./data/tollgate.db', 'sqlite'],
    ['/var/lib/tollgate/tollgate.db', 'sqlite'],
    ['C:\\data\\tollgate.db', 'sqlite'],
    [':memory:', 'sqlite'],
    ['postgres://tollgate@db:5432/tollgate', 'postgres'],
    ['postgresql://tollgate:pw@db/tollgate?sslmode=verify-full', 'postgres'],
    ['POSTGRES://db/tollgate', 'postgres'],
  ])('%s is %s', (value, dialect) => {
    expect(databaseDialect(value)).toBe(dialect);
  });

  it.each(['mysql://root@db/x', 'sqlite:./x.db', 'redis://127.0.0.1:6379', 'file:tollgate.db'])(
    'refuses %s naming the scheme',
    (value) => {
      expect(() => databaseDialect(value)).toThrow(ValidationError);
      expect(() => databaseDialect(value)).toThrow(
        /is not a database tollgate knows .*SQLite file .*postgres:\/\/ URL/,
      );
    },
  );

  it('hides passwords in the user-info and in a password= option', () => {
    expect(redactUrl('postgres://u:s3cr%40t@db:5432/x?sslmode=require&password=other&a=1')).toBe(
      'postgres://u:…@db:5432/x?sslmode=require&password=…&a=1',
    );
    expect(redactUrl('postgres://u@db/x')).toBe('postgres://u@db/x');
    expect(redactUrl('./data/tollgate.db')).toBe('./data/tollgate.db');
    expect(() => databaseDialect('mysql://root:hunter2@db/x')).toThrow(/mysql:\/\/root:…@db\/x/);
  });
});
