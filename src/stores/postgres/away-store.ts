/**
 * @module stores/postgres/away-store
 * {@link AwayStore} on PostgreSQL (`people_away`), the twin of `SqliteAwayStore`: every replica reads the same rows,
 * so a window set through one replica holds on all of them at their next read.
 */
import type { AwayChange, AwayStore } from '../../people/away-book.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

interface Row {
  id: string | number;
  person: string;
  awayFrom: Date | null;
  awayUntil: Date | null;
  delegate: string | null;
  note: string | null;
  setBy: string;
  at: Date;
}

const COLUMNS = 'id, person, away_from AS "awayFrom", away_until AS "awayUntil", delegate, note, set_by AS "setBy", at';

/** Each person's newest change. */
const LATEST = `SELECT DISTINCT ON (person) ${COLUMNS} FROM people_away ORDER BY person, id DESC`;

function changeOf(row: Row): AwayChange {
  const away =
    row.awayFrom && row.awayUntil
      ? { from: row.awayFrom, until: row.awayUntil, delegate: row.delegate, note: row.note }
      : null;
  return { id: Number(row.id), person: row.person, away, setBy: row.setBy, at: row.at };
}

/** Away changes kept in the PostgreSQL database. */
export class PostgresAwayStore implements AwayStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async latest(): Promise<AwayChange[]> {
    const { rows } = await withPostgresErrors(() => this.open.pool.query<Row>(LATEST));
    return rows.map(changeOf);
  }

  /**
   * `check` runs in the insert's transaction after `LOCK TABLE people_away IN SHARE ROW EXCLUSIVE MODE`, a mode that
   * conflicts with itself and with every insert: two replicas' checked writes run one after the other, each reading
   * the other's row. Readers are not blocked.
   */
  async record(change: AwayChange, check?: (latest: AwayChange[]) => void): Promise<AwayChange> {
    const { away } = change;
    const client = await withPostgresErrors(() => this.open.pool.connect());
    try {
      await withPostgresErrors(() => client.query('BEGIN'));
      await withPostgresErrors(() => client.query('LOCK TABLE people_away IN SHARE ROW EXCLUSIVE MODE'));
      if (check) check((await withPostgresErrors(() => client.query<Row>(LATEST))).rows.map(changeOf));
      const { rows } = await withPostgresErrors(() =>
        client.query<{ id: string }>(
          'INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
          [
            change.person,
            away?.from ?? null,
            away?.until ?? null,
            away?.delegate ?? null,
            away?.note ?? null,
            change.setBy,
            change.at,
          ],
        ),
      );
      await withPostgresErrors(() => client.query('COMMIT'));
      return { ...change, id: Number(rows[0]!.id) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async after(afterId: number, limit: number): Promise<AwayChange[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<Row>(`SELECT ${COLUMNS} FROM people_away WHERE id > $1 ORDER BY id LIMIT $2`, [
        afterId,
        limit,
      ]),
    );
    return rows.map(changeOf);
  }

  async head(): Promise<number> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<{ head: string }>('SELECT coalesce(max(id), 0) AS head FROM people_away'),
    );
    return Number(rows[0]!.head);
  }

  async history(person: string, limit: number): Promise<AwayChange[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<Row>(`SELECT ${COLUMNS} FROM people_away WHERE person = $1 ORDER BY id DESC LIMIT $2`, [
        person,
        limit,
      ]),
    );
    return rows.map(changeOf);
  }
}
