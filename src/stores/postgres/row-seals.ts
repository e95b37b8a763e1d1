/**
 * @module stores/postgres/row-seals
 * Signing the away and token rows kept from before row signatures, once, at the upgrade that added them
 * (`audit/witnessed-rows.ts`, `OpenStores.signRowsAtUpgrade`): the one place rows are signed as read back.
 */
import type { Witness } from '../../audit/witness.js';
import type { RowSeal } from '../../audit/witnessed-rows.js';
import { inTransaction } from './transaction.js';
import type pg from 'pg';

/** Signs every row of `table` with no signature (`columns` selects what `messageOf` needs); returns how many. */
export async function signUnsignedRows<R extends RowSeal & { id: string | number }>(
  pool: pg.Pool,
  table: 'api_tokens' | 'people_away',
  columns: string,
  messageOf: (row: R) => Buffer,
  witness: Witness,
): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<R>(`SELECT ${columns} FROM ${table} WHERE signature IS NULL FOR UPDATE`);
    for (const row of rows) {
      const seal = witness.signRow(messageOf(row));
      await client.query(`UPDATE ${table} SET signature = $1, kid = $2 WHERE id = $3`, [
        seal.signature,
        seal.kid,
        row.id,
      ]);
    }
    return rows.length;
  });
}
