/**
 * @module stores/sqlite/away-store
 * {@link AwayStore} on SQLite (`people_away`): each change a row, the newest per person in force. The table is small
 * (a row per change of someone's away status), so reading every person's newest row is one indexed query.
 *
 * @remarks Statements are prepared on first use, as `marks.ts` does: a reader opening an older file without migrating
 * it never touches the table.
 */
import type Database from 'better-sqlite3';
import type { AwayChange, AwayStore } from '../../people/away-book.js';
import { withSqliteErrors } from './errors.js';

interface Row {
  id: number;
  person: string;
  awayFrom: string | null;
  awayUntil: string | null;
  delegate: string | null;
  note: string | null;
  setBy: string;
  at: string;
}

const COLUMNS = 'id, person, away_from AS awayFrom, away_until AS awayUntil, delegate, note, set_by AS setBy, at';

function changeOf(row: Row): AwayChange {
  const away =
    row.awayFrom && row.awayUntil
      ? { from: new Date(row.awayFrom), until: new Date(row.awayUntil), delegate: row.delegate, note: row.note }
      : null;
  return { id: row.id, person: row.person, away, setBy: row.setBy, at: new Date(row.at) };
}

/** Away changes kept in the SQLite file. */
export class SqliteAwayStore implements AwayStore {
  private statements: ReturnType<SqliteAwayStore['prepare']> | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  private prepare() {
    return {
      latest: this.sqlite.prepare(
        `SELECT ${COLUMNS} FROM people_away WHERE id IN (SELECT max(id) FROM people_away GROUP BY person)`,
      ),
      insert: this.sqlite.prepare(
        'INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      history: this.sqlite.prepare(`SELECT ${COLUMNS} FROM people_away WHERE person = ? ORDER BY id DESC LIMIT ?`),
      after: this.sqlite.prepare(`SELECT ${COLUMNS} FROM people_away WHERE id > ? ORDER BY id LIMIT ?`),
      head: this.sqlite.prepare('SELECT coalesce(max(id), 0) FROM people_away').pluck(),
    };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  async latest(): Promise<AwayChange[]> {
    return withSqliteErrors(() => (this.sql.latest.all() as Row[]).map(changeOf));
  }

  /** `check` runs in the same IMMEDIATE transaction as the insert: the file's write lock spans the read and the write. */
  async record(change: AwayChange, check?: (latest: AwayChange[]) => void): Promise<AwayChange> {
    const { away } = change;
    const write = this.sqlite.transaction(() => {
      check?.((this.sql.latest.all() as Row[]).map(changeOf));
      return this.sql.insert.run(
        change.person,
        away?.from.toISOString() ?? null,
        away?.until.toISOString() ?? null,
        away?.delegate ?? null,
        away?.note ?? null,
        change.setBy,
        change.at.toISOString(),
      );
    });
    const info = withSqliteErrors(() => write.immediate());
    return { ...change, id: Number(info.lastInsertRowid) };
  }

  async history(person: string, limit: number): Promise<AwayChange[]> {
    return withSqliteErrors(() => (this.sql.history.all(person, limit) as Row[]).map(changeOf));
  }

  async after(afterId: number, limit: number): Promise<AwayChange[]> {
    return withSqliteErrors(() => (this.sql.after.all(afterId, limit) as Row[]).map(changeOf));
  }

  async head(): Promise<number> {
    return withSqliteErrors(() => this.sql.head.get() as number);
  }
}
