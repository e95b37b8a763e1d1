/**
 * @module stores/postgres/audit-integration
 * The integrator's side on PostgreSQL (`audit/integrator.ts`): a batch is one transaction that holds the one-row head
 * (`SELECT … FROM chain_head WHERE id = 1 FOR UPDATE SKIP LOCKED`: a replica that finds it held leaves at once, the
 * holder integrates for everyone — no election, no chain-wide lock on any writer). It reads pending events oldest id
 * first, places them with one `UPDATE … FROM unnest(…)`, moves the head and inserts a checkpoint when one is due, in
 * the same transaction: a replica killed mid-batch leaves the events pending for the next.
 */
import type { BatchWrite, HeadState, IntegrationStore, PendingEvent } from '../../audit/integrator.js';
import { leafOfColumns } from '../../audit/leaf.js';
import type { OpenPostgres } from './database.js';
import { inTransaction } from './transaction.js';

const HEAD = `SELECT size, hash, checkpoint, checkpoint_at AS "checkpointAt", checkpoint_size AS "checkpointSize", legacy
  FROM chain_head WHERE id = 1 FOR UPDATE SKIP LOCKED`;

/** Events still without a place, ids up to `$1`, oldest first, up to `$2`. */
export const PENDING = 'SELECT id, leaf FROM confirmation_events WHERE seq IS NULL AND id <= $1 ORDER BY id LIMIT $2';

/**
 * Run before {@link PENDING} in the batch's transaction: a plain index scan, not a bitmap one. Events leave the pending
 * index by an UPDATE, so until a vacuum it holds an entry for every event placed since; an index scan marks those it
 * finds dead and the next batch skips them, while a bitmap scan (what the planner takes without statistics) visits all
 * of their heap pages every batch: 10 ms a batch 50,000 events after a vacuum, against 0.3 ms
 * (test/integration/postgres/pending-scan.test.ts). Under the replicas bench it was the database's second cost.
 */
export const PENDING_SCAN = 'SET LOCAL enable_bitmapscan = off';

/** Content of events by id, for a pending row that came without its leaf (the created event's request fields too). */
const CONTENT = `SELECT e.id, e.request_id, e.type, e.actor, e.channel, e.detail::text, tollgate_chain_time(e.at),
    r.tool_name, r.args_sha256, r.required_approvals::text, r.on_timeout, tollgate_chain_time(r.created_at),
    tollgate_chain_time(r.expires_at), r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.id = ANY($1::bigint[])`;

/** One batch's writes: the places, the head, and the checkpoint when `$11` is set. */
const APPLY = `WITH placed AS (
    UPDATE confirmation_events e SET seq = p.seq, prev_hash = p.prev, hash = p.hash, leaf = p.leaf
    FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS p(id, seq, prev, hash, leaf)
    WHERE e.id = p.id
  ), checkpoint AS (
    INSERT INTO chain_checkpoints (n, size, head, at, kind, kid, signature) SELECT $8::int, $12::bigint, $13::text, $14::text, $15::text, $16::text, $17::text WHERE $11::boolean
  )
  UPDATE chain_head SET size = $6, hash = $7, checkpoint = $8, checkpoint_at = $9, checkpoint_size = $10, legacy = $18 WHERE id = 1`;

/** Bigint columns arrive as strings. */
interface HeadRow {
  size: string;
  hash: string;
  checkpoint: number;
  checkpointAt: string | null;
  checkpointSize: string;
  legacy: string | null;
}

/** {@link IntegrationStore} on one PostgreSQL database. */
export class PostgresIntegration implements IntegrationStore {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async integrate(limit: number, plan: (head: HeadState, pending: PendingEvent[]) => BatchWrite | null) {
    return inTransaction(this.open.pool, async (client): Promise<number | null> => {
      const [row] = (await client.query<HeadRow>(HEAD)).rows;
      // Another replica holds the head: it integrates for everyone.
      if (!row) return null;
      const head: HeadState = {
        size: Number(row.size),
        hash: row.hash,
        checkpoint: row.checkpoint,
        checkpointAt: row.checkpointAt,
        checkpointSize: Number(row.checkpointSize),
        legacy: row.legacy === null ? null : Number(row.legacy),
      };
      const open = head.checkpoint === 0 && head.legacy !== null;
      const upTo = open ? head.legacy! : Number.MAX_SAFE_INTEGER;
      await client.query(PENDING_SCAN);
      const rows = (await client.query<{ id: string; leaf: string | null }>(PENDING, [upTo, limit])).rows;
      const bare = rows.filter((r) => r.leaf === null).map((r) => r.id);
      const leaves = new Map<string, string>();
      if (bare.length) {
        const content = await client.query<unknown[]>({ text: CONTENT, values: [bare], rowMode: 'array' });
        for (const [id, ...columns] of content.rows)
          leaves.set(String(id), leafOfColumns(columns as (string | number | null)[]));
      }
      const write = plan(
        head,
        rows.map((r) => ({ id: Number(r.id), leaf: r.leaf ?? leaves.get(r.id)! })),
      );
      if (write) await client.query(APPLY, applyParams(write));
      return rows.length;
    });
  }
}

function applyParams({ placed, head, checkpoint: c }: BatchWrite): unknown[] {
  return [
    placed.map((p) => p.id),
    placed.map((p) => p.seq),
    placed.map((p) => p.prevHash),
    placed.map((p) => p.hash),
    placed.map((p) => p.leaf),
    head.size,
    head.hash,
    head.checkpoint,
    head.checkpointAt,
    head.checkpointSize,
    c !== null,
    c?.size ?? null,
    c?.head ?? null,
    c?.at ?? null,
    c?.kind ?? null,
    c?.kid ?? null,
    c?.signature ?? null,
    head.legacy,
  ];
}
