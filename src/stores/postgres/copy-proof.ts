/**
 * @module stores/postgres/copy-proof
 * The fifth stage's audit tables in `tollgate migrate --from SQLite` (`copy-from-sqlite.ts`): receipts, checkpoints,
 * verdict tokens and the integrator's head, as they are, so `audit verify` on PostgreSQL checks what was signed on
 * SQLite. The source's head replaces the target's when the target has integrated nothing of its own yet.
 */
import type pg from 'pg';
import type { OpenDatabase } from '../sqlite/database.js';

type Row = Record<string, unknown>;

/** Copies the four tables of `source` into the transaction of `client`; rows already there are left alone. */
export async function copyProof(source: OpenDatabase, client: pg.PoolClient): Promise<void> {
  const rows = (sql: string) => source.sqlite.prepare(sql).iterate() as IterableIterator<Row>;
  for (const r of rows('SELECT id, kid, at, leaves, signature FROM audit_receipts ORDER BY id'))
    await client.query(
      'INSERT INTO audit_receipts (id, kid, at, leaves, signature) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
      [r.id, r.kid, r.at, r.leaves, r.signature],
    );
  for (const c of rows('SELECT n, size, head, at, kind, kid, signature FROM chain_checkpoints ORDER BY n'))
    await client.query(
      'INSERT INTO chain_checkpoints (n, size, head, at, kind, kid, signature) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (n) DO NOTHING',
      [c.n, c.size, c.head, c.at, c.kind, c.kid, c.signature],
    );
  for (const t of rows('SELECT request_id, token FROM verdict_tokens ORDER BY request_id'))
    await client.query(
      'INSERT INTO verdict_tokens (request_id, token) VALUES ($1, $2) ON CONFLICT (request_id) DO NOTHING',
      [t.request_id, t.token],
    );
  const head = source.sqlite
    .prepare('SELECT size, hash, checkpoint, checkpoint_at, checkpoint_size, legacy FROM chain_head WHERE id = 1')
    .get() as Row | undefined;
  if (head)
    await client.query(
      `UPDATE chain_head SET size = $1, hash = $2, checkpoint = $3, checkpoint_at = $4, checkpoint_size = $5, legacy = $6
       WHERE id = 1 AND size = 0 AND checkpoint = 0`,
      [head.size, head.hash, head.checkpoint, head.checkpoint_at, head.checkpoint_size, head.legacy],
    );
}
