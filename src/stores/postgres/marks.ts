/**
 * @module stores/postgres/marks
 * {@link SharedMarks} on PostgreSQL (`shared_marks`): one row per mark, keyed by kind and key. `take` is one
 * `DELETE … RETURNING`, so of several replicas spending the same login link exactly one gets the row.
 */
import type { MarkKind, SharedMarks } from '../../contracts/shared-marks.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';

/** Expiring marks shared by every replica on one PostgreSQL database. */
export class PostgresMarks implements SharedMarks {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async add(kind: MarkKind, key: string, expiresAt: Date): Promise<boolean> {
    return withPostgresErrors(async () => {
      // Marks are few (sign-ins, sign-outs): pruning the expired ones on each add keeps the table small.
      await this.open.pool.query('DELETE FROM shared_marks WHERE expires_at <= now()');
      const { rowCount } = await this.open.pool.query(
        `INSERT INTO shared_marks (kind, key, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (kind, key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE shared_marks.expires_at <= now()`,
        [kind, key, expiresAt],
      );
      return rowCount === 1;
    });
  }

  async take(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    const { rowCount } = await withPostgresErrors(() =>
      this.open.pool.query('DELETE FROM shared_marks WHERE kind = $1 AND key = $2 AND expires_at > $3', [
        kind,
        key,
        now,
      ]),
    );
    return rowCount === 1;
  }

  async has(kind: MarkKind, key: string, now: Date): Promise<boolean> {
    const { rowCount } = await withPostgresErrors(() =>
      this.open.pool.query('SELECT 1 FROM shared_marks WHERE kind = $1 AND key = $2 AND expires_at > $3', [
        kind,
        key,
        now,
      ]),
    );
    return rowCount === 1;
  }
}
