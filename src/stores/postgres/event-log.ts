/**
 * @module stores/postgres/event-log
 * {@link EventLog} on PostgreSQL. A sink's lock is a session advisory lock on a connection held while its batch is
 * delivered, so of several replicas exactly one delivers each sink at a time and the order of events holds.
 */
import { createHash } from 'node:crypto';
import type { EventLog, PlacedEvent } from '../../events/types.js';
import type { EventType } from '../../requests/types.js';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { rowToEvent } from './rows.js';
import { guardClient } from './transaction.js';

const EVENT_COLUMNS = 'id, request_id AS "requestId", type, actor, channel, detail, at, seq AS position';

/** The lock key of a sink: 63 bits of its name's hash (advisory locks take a bigint). */
function lockKey(name: string): string {
  return (
    BigInt(`0x${createHash('sha256').update(`tollgate-sink:${name}`).digest('hex').slice(0, 16)}`) >> 1n
  ).toString();
}

/** The event stream's reads and cursors on PostgreSQL, shared by the replicas. */
export class PostgresEventLog implements EventLog {
  constructor(private readonly open: Pick<OpenPostgres, 'pool'>) {}

  async after(afterPosition: number, limit: number, types: readonly EventType[]): Promise<PlacedEvent[]> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<Parameters<typeof rowToEvent>[0] & { position: string }>(
        `SELECT ${EVENT_COLUMNS} FROM confirmation_events WHERE seq > $1 AND type = ANY($2) ORDER BY seq LIMIT $3`,
        [afterPosition, types, limit],
      );
      return rows.map((row) => ({ ...rowToEvent(row), position: Number(row.position) }));
    });
  }

  async head(): Promise<number> {
    return withPostgresErrors(async () =>
      Number(
        (await this.open.pool.query<{ size: string }>('SELECT coalesce(max(size), 0) AS size FROM chain_head')).rows[0]!
          .size,
      ),
    );
  }

  async cursor(name: string): Promise<number | null> {
    return withPostgresErrors(async () => {
      const { rows } = await this.open.pool.query<{ event_id: string | null }>(
        'SELECT event_id FROM audit_marks WHERE name = $1',
        [name],
      );
      return rows[0]?.event_id == null ? null : Number(rows[0].event_id);
    });
  }

  async advance(name: string, eventId: number): Promise<void> {
    await withPostgresErrors(() =>
      this.open.pool.query(
        `INSERT INTO audit_marks (name, event_id, at) VALUES ($1, $2, now())
         ON CONFLICT (name) DO UPDATE SET event_id = greatest(audit_marks.event_id, EXCLUDED.event_id), at = now()`,
        [name, eventId],
      ),
    );
  }

  async exclusive(name: string, fn: () => Promise<void>): Promise<boolean> {
    const client = await withPostgresErrors(() => this.open.pool.connect());
    // Held while the sink delivers: a connection ended meanwhile must not end the process (`transaction.ts`).
    const guard = guardClient(client);
    const key = lockKey(name);
    // A connection whose lock or unlock failed may still hold the lock: it is dropped rather than returned to the pool.
    let broken = true;
    try {
      const { rows } = await withPostgresErrors(() =>
        client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [key]),
      );
      if (!rows[0]?.locked) {
        broken = false;
        return false;
      }
      try {
        await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).then(
          () => (broken = false),
          () => undefined,
        );
      }
      return true;
    } finally {
      guard.done();
      client.release(broken || guard.error() !== undefined);
    }
  }
}
