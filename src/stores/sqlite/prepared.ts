/**
 * @module stores/sqlite/prepared
 * Statements prepared once per SQL text on one connection, for the reads whose SQL varies with the filters given (the
 * audit query, exports). drizzle's `.all()` prepares its statement again on every call: ~70 µs of CPU for a page of
 * the list API, whatever its size (in process, on a seeded history).
 */
import type Database from 'better-sqlite3';

/** One connection's statements by SQL text. The texts are few: one per combination of filters a query can give. */
export class PreparedStatements {
  private readonly bySql = new Map<string, Database.Statement>();

  /** `raw`: rows come back as arrays of values (better-sqlite3's raw mode), not objects. */
  constructor(
    private readonly sqlite: Database.Database,
    private readonly raw = false,
  ) {}

  /** The statement of `sql` on this connection, prepared on first use. */
  get(sql: string): Database.Statement {
    let statement = this.bySql.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      if (this.raw) statement.raw(true);
      this.bySql.set(sql, statement);
    }
    return statement;
  }
}
