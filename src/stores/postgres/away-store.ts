/**
 * @module stores/postgres/away-store
 * {@link AwayStore} on PostgreSQL (`people_away`), the twin of `SqliteAwayStore`: every replica reads the same rows,
 * so a window set through one replica holds on all of them at their next read.
 */
import type { AwayChange, AwayStore } from '../../people/away-book.js';
import type { Witness } from '../../audit/witness.js';
import { awayRowMessage, RowSeals, witnessedLatest, type SignedRowAudit } from '../../audit/witnessed-rows.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { signUnsignedRows } from './row-seals.js';

interface Row {
  id: string | number;
  person: string;
  awayFrom: Date | null;
  awayUntil: Date | null;
  delegate: string | null;
  note: string | null;
  setBy: string;
  at: Date;
  signature: string | null;
  kid: string | null;
}

const COLUMNS =
  'id, person, away_from AS "awayFrom", away_until AS "awayUntil", delegate, note, set_by AS "setBy", at, signature, kid';

/** The bytes an away row is signed over (`audit/witnessed-rows.ts`). */
const messageOf = (row: Omit<Row, 'signature' | 'kid'>): Buffer =>
  awayRowMessage({ ...row, id: Number(row.id), from: row.awayFrom, until: row.awayUntil });

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
  private witness: Witness | null = null;
  private seals: RowSeals | null = null;

  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  /** Signs the rows written from now on, and puts in force only witnessed rows (`audit/witnessed-rows.ts`). */
  useWitness(witness: Witness | null): void {
    this.witness = witness;
    this.seals = witness ? new RowSeals(witness.keys) : null;
  }

  /** Signs every unsigned row as it is, once, at the upgrade that added signatures; returns how many. */
  async signUnsigned(witness: Witness): Promise<number> {
    return signUnsignedRows<Row>(this.open.pool, 'people_away', COLUMNS, messageOf, witness);
  }

  /** Each person's newest witnessed row (with a witness set): a row written around tollgate is not in force. */
  async latest(): Promise<AwayChange[]> {
    const { rows } = await withPostgresErrors(() => this.open.pool.query<Row>(LATEST));
    const witnessed = (row: Row) =>
      !this.seals ||
      this.seals.why('away', row.id, JSON.stringify(Object.values(row)), () => messageOf(row), row) === null;
    const older = async (person: string) =>
      (
        await withPostgresErrors(() =>
          this.open.pool.query<Row>(`SELECT ${COLUMNS} FROM people_away WHERE person = $1 ORDER BY id DESC`, [person]),
        )
      ).rows;
    return (await witnessedLatest(rows, witnessed, older)).map(changeOf);
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
      const id = Number(rows[0]!.id);
      // Signed with its id, which only the insert gives, in the same transaction.
      const seal = this.witness?.signRow(
        messageOf({
          id,
          person: change.person,
          awayFrom: away?.from ?? null,
          awayUntil: away?.until ?? null,
          delegate: away?.delegate ?? null,
          note: away?.note ?? null,
          setBy: change.setBy,
          at: change.at,
        }),
      );
      if (seal)
        await withPostgresErrors(() =>
          client.query('UPDATE people_away SET signature = $1, kid = $2 WHERE id = $3', [seal.signature, seal.kid, id]),
        );
      await withPostgresErrors(() => client.query('COMMIT'));
      return { ...change, id };
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

  /** Rows with `id > afterId`, by id, up to `limit`, as `audit verify` checks them. */
  async audits(afterId: number, limit: number): Promise<SignedRowAudit[]> {
    const { rows } = await withPostgresErrors(() =>
      this.open.pool.query<Row>(`SELECT ${COLUMNS} FROM people_away WHERE id > $1 ORDER BY id LIMIT $2`, [
        afterId,
        limit,
      ]),
    );
    return rows.map((row) => ({
      kind: 'away',
      id: String(row.id),
      owner: row.person,
      message: messageOf(row),
      kid: row.kid,
      signature: row.signature,
    }));
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
