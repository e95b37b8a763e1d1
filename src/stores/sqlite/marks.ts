/**
 * @module stores/sqlite/marks
 * {@link SharedMarks} on SQLite (`shared_marks`, as on PostgreSQL): what the embedded gateway must not forget on a
 * restart — the web sessions signed out before their expiry. Every statement is one indexed read or write on the
 * gateway's own connection (microseconds), so a session check costs no more than a look-up in memory would, and a
 * process sharing the file sees the same sign-outs.
 *
 * @remarks Statements are prepared on first use, not when the stores open: `tollgate audit` opens a database without
 * migrating it, and an older file has no `shared_marks` yet.
 */
import type Database from 'better-sqlite3';
import type { MarkKind, SharedMarks } from '../../contracts/shared-marks.js';
import { withSqliteErrors } from './errors.js';

/** Expiring marks kept in the SQLite file. */
export class SqliteMarks implements SharedMarks {
  private statements: ReturnType<SqliteMarks['prepare']> | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  private prepare() {
    return {
      prune: this.sqlite.prepare('DELETE FROM shared_marks WHERE expires_at <= ?'),
      // A live mark with the key stays as it is (false); an expired one is replaced.
      add: this.sqlite.prepare(
        `INSERT INTO shared_marks (kind, key, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (kind, key) DO UPDATE SET expires_at = excluded.expires_at WHERE shared_marks.expires_at <= ?`,
      ),
      take: this.sqlite.prepare('DELETE FROM shared_marks WHERE kind = ? AND key = ? AND expires_at > ?'),
      has: this.sqlite.prepare('SELECT 1 FROM shared_marks WHERE kind = ? AND key = ? AND expires_at > ?').pluck(),
    };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  async add(kind: MarkKind, key: string, expiresAt: Date): Promise<boolean> {
    return withSqliteErrors(() => {
      const now = new Date().toISOString();
      // Marks are few (sign-outs): pruning the expired ones on each add keeps the table small.
      this.sql.prune.run(now);
      return this.sql.add.run(kind, key, expiresAt.toISOString(), now).changes === 1;
    });
  }

  async take(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    return withSqliteErrors(() => this.sql.take.run(kind, key, now.toISOString()).changes === 1);
  }

  async has(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    return withSqliteErrors(() => this.sql.has.get(kind, key, now.toISOString()) !== undefined);
  }
}
