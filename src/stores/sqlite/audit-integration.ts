/**
 * @module stores/sqlite/audit-integration
 * The integrator's side on SQLite (`audit/integrator.ts`): a batch is one `BEGIN IMMEDIATE` transaction, whose write
 * lock is the head's lock (processes sharing the file take turns). Events are placed by updating their row in place.
 */
import type Database from 'better-sqlite3';
import type { BatchWrite, HeadState, IntegrationStore, PendingEvent } from '../../audit/integrator.js';
import { leafOfColumns } from '../../audit/leaf.js';

/** Content of events by id, for a pending row that came without its leaf (the created event's request fields too). */
export const EVENT_CONTENT = `SELECT e.id, e.request_id, e.type, e.actor, e.channel, e.detail, e.at,
    r.tool_name, r.args_sha256, r.required_approvals, r.on_timeout, r.created_at, r.expires_at, r.user_id, r.agent_id, r.filed_by
  FROM confirmation_events e LEFT JOIN confirmation_requests r ON e.type = 'created' AND r.id = e.request_id
  WHERE e.id IN (SELECT value FROM json_each(?))`;

/** {@link IntegrationStore} on one SQLite connection. */
export class SqliteIntegration implements IntegrationStore {
  private prepared: ReturnType<typeof prepare> | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  /** Prepared at the first batch, not when the stores open: a tool reading an older database never integrates. */
  private get s(): ReturnType<typeof prepare> {
    return (this.prepared ??= prepare(this.sqlite));
  }

  async integrate(limit: number, plan: (head: HeadState, pending: PendingEvent[]) => BatchWrite | null) {
    const s = this.s;
    // Most ticks find nothing to do: a read says so without the write lock (WAL readers never wait), so an idle
    // gateway takes no write lock every 100 ms. A plan over no events is pure unless a checkpoint is due.
    if (!s.anyPending.get() && plan(s.head.get() as HeadState, []) === null) return 0;
    // The head is the write lock here: held by another process, this tick gives way at once (the interface's "null")
    // instead of blocking the event loop for the busy timeout; the next tick, or that process, integrates.
    const busyTimeout = this.sqlite.pragma('busy_timeout', { simple: true }) as number;
    this.sqlite.pragma('busy_timeout = 0');
    try {
      return this.batch(limit, plan);
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return null;
      throw error;
    } finally {
      this.sqlite.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  private batch(limit: number, plan: (head: HeadState, pending: PendingEvent[]) => BatchWrite | null): number {
    const s = this.s;
    return s.immediate(() => {
      const head = s.head.get() as HeadState;
      const open = head.checkpoint === 0 && head.legacy !== null;
      const rows = s.pending.all(open ? head.legacy : Number.MAX_SAFE_INTEGER, limit) as {
        id: number;
        leaf: string | null;
      }[];
      const bare = rows.filter((r) => r.leaf === null).map((r) => r.id);
      const leaves = new Map<number, string>();
      if (bare.length)
        for (const [id, ...columns] of s.content.all(JSON.stringify(bare)) as [number, ...(string | number | null)[]][])
          leaves.set(id, leafOfColumns(columns));
      const write = plan(
        head,
        rows.map((r) => ({ id: r.id, leaf: r.leaf ?? leaves.get(r.id)! })),
      );
      if (write) this.apply(write);
      return rows.length;
    });
  }

  private apply({ placed, head, checkpoint }: BatchWrite): void {
    const s = this.s;
    for (const p of placed) s.place.run(p.seq, p.prevHash, p.hash, p.leaf, p.id);
    s.moveHead.run(head.size, head.hash, head.checkpoint, head.checkpointAt, head.checkpointSize, head.legacy);
    if (checkpoint) {
      const c = checkpoint;
      s.insertCheckpoint.run(c.n, c.size, c.head, c.at, c.kind, c.kid, c.signature);
    }
  }
}

/** The integrator's statements on one connection. */
function prepare(sqlite: Database.Database) {
  return {
    head: sqlite.prepare(
      'SELECT size, hash, checkpoint, checkpoint_at AS checkpointAt, checkpoint_size AS checkpointSize, legacy FROM chain_head WHERE id = 1',
    ),
    anyPending: sqlite.prepare('SELECT 1 FROM confirmation_events WHERE seq IS NULL LIMIT 1').pluck(),
    pending: sqlite.prepare(
      'SELECT id, leaf FROM confirmation_events WHERE seq IS NULL AND id <= ? ORDER BY id LIMIT ?',
    ),
    content: sqlite.prepare(EVENT_CONTENT).raw(),
    place: sqlite.prepare('UPDATE confirmation_events SET seq = ?, prev_hash = ?, hash = ?, leaf = ? WHERE id = ?'),
    moveHead: sqlite.prepare(
      'UPDATE chain_head SET size = ?, hash = ?, checkpoint = ?, checkpoint_at = ?, checkpoint_size = ?, legacy = ? WHERE id = 1',
    ),
    insertCheckpoint: sqlite.prepare(
      'INSERT INTO chain_checkpoints (n, size, head, at, kind, kid, signature) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    immediate: sqlite.transaction((fn: () => unknown) => fn()).immediate as <T>(fn: () => T) => T,
  };
}
