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
import type { Witness } from '../../audit/witness.js';
import { awayRowMessage, RowSeals, witnessedLatest, type SignedRowAudit } from '../../audit/witnessed-rows.js';
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
  signature: string | null;
  kid: string | null;
}

const COLUMNS =
  'id, person, away_from AS awayFrom, away_until AS awayUntil, delegate, note, set_by AS setBy, at, signature, kid';

/** The bytes an away row is signed over (`audit/witnessed-rows.ts`). */
function messageOf(row: Omit<Row, 'signature' | 'kid'>): Buffer {
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return awayRowMessage({ ...row, from: date(row.awayFrom), until: date(row.awayUntil), at: new Date(row.at) });
}

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
  private witness: Witness | null = null;
  private seals: RowSeals | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  /** Signs the rows written from now on, and puts in force only witnessed rows (`audit/witnessed-rows.ts`). */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
    this.seals = witness ? new RowSeals(witness.keys) : null;
  }

  /** Signs every unsigned row as it is, once, at the upgrade that added signatures; returns how many. */
  signUnsigned(witness: Witness): number {
    return this.sqlite
      .transaction(() => {
        const rows = this.sqlite.prepare(`SELECT ${COLUMNS} FROM people_away WHERE signature IS NULL`).all() as Row[];
        for (const row of rows) {
          const seal = witness.signRow(messageOf(row));
          this.sql.seal.run(seal.signature, seal.kid, row.id);
        }
        return rows.length;
      })
      .immediate();
  }

  private readonly witnessed = (row: Row): boolean =>
    !this.seals ||
    this.seals.why('away', row.id, JSON.stringify(Object.values(row)), () => messageOf(row), row) === null;

  private prepare() {
    return {
      latest: this.sqlite.prepare(
        `SELECT ${COLUMNS} FROM people_away WHERE id IN (SELECT max(id) FROM people_away GROUP BY person)`,
      ),
      insert: this.sqlite.prepare(
        'INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      seal: this.sqlite.prepare('UPDATE people_away SET signature = ?, kid = ? WHERE id = ?'),
      history: this.sqlite.prepare(`SELECT ${COLUMNS} FROM people_away WHERE person = ? ORDER BY id DESC LIMIT ?`),
      after: this.sqlite.prepare(`SELECT ${COLUMNS} FROM people_away WHERE id > ? ORDER BY id LIMIT ?`),
      head: this.sqlite.prepare('SELECT coalesce(max(id), 0) FROM people_away').pluck(),
    };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  /** Each person's newest witnessed row (with a witness set): a row written around tollgate is not in force. */
  async latest(): Promise<AwayChange[]> {
    const rows = withSqliteErrors(() => this.sql.latest.all() as Row[]);
    const older = async (person: string) =>
      withSqliteErrors(() => this.sql.history.all(person, Number.MAX_SAFE_INTEGER) as Row[]);
    return (await witnessedLatest(rows, this.witnessed, older)).map(changeOf);
  }

  /** `check` runs in the same IMMEDIATE transaction as the insert: the file's write lock spans the read and the write. */
  async record(change: AwayChange, check?: (latest: AwayChange[]) => void): Promise<AwayChange> {
    const { away } = change;
    const write = this.sqlite.transaction(() => {
      check?.((this.sql.latest.all() as Row[]).map(changeOf));
      const row = {
        person: change.person,
        awayFrom: away?.from.toISOString() ?? null,
        awayUntil: away?.until.toISOString() ?? null,
        delegate: away?.delegate ?? null,
        note: away?.note ?? null,
        setBy: change.setBy,
        at: change.at.toISOString(),
      };
      const info = this.sql.insert.run(
        row.person,
        row.awayFrom,
        row.awayUntil,
        row.delegate,
        row.note,
        row.setBy,
        row.at,
      );
      // Signed with its id, which only the insert gives, in the same transaction.
      const id = Number(info.lastInsertRowid);
      const seal = this.witness?.signRow(messageOf({ ...row, id }));
      if (seal) this.sql.seal.run(seal.signature, seal.kid, id);
      return info;
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

  /** Rows with `id > afterId`, by id, up to `limit`, as `audit verify` checks them. */
  audits(afterId: number, limit: number): SignedRowAudit[] {
    return withSqliteErrors(() => this.sql.after.all(afterId, limit) as Row[]).map((row) => ({
      kind: 'away',
      id: String(row.id),
      owner: row.person,
      message: messageOf(row),
      kid: row.kid,
      signature: row.signature,
    }));
  }

  async head(): Promise<number> {
    return withSqliteErrors(() => this.sql.head.get() as number);
  }
}
