/**
 * @module stores/postgres/replica-guard
 * Replicas on one PostgreSQL database must share a scheduler (BullMQ on `REDIS_URL`): an in-process scheduler on
 * each would post every card and fire every expiry once per replica. Each gateway holds one advisory lock on a
 * connection of its own for as long as it runs — shared when it schedules through Redis, exclusive when it schedules
 * in-process — so PostgreSQL itself refuses the mix: a Redis-less replica cannot start beside any other, and no
 * replica can start beside a Redis-less one. A process that dies (even `kill -9`) drops its connection, and the
 * lock with it, so a restart is never refused by its own ghost.
 *
 * @remarks Left out: SQLite (one file is one host; its processes share the in-process scheduler's fate as before).
 */
import pg from 'pg';
import { TollgateError, describeError } from '../../api/errors.js';
import type { DatabaseLogger, OpenPostgres } from './database.js';
import { fromPostgresError } from './errors.js';

/** The advisory lock key every tollgate replica takes ("tgar" in ASCII; below 2^31, so pg_locks shows it as objid). */
const REPLICA_LOCK = 0x74676172;

/** Start-up refused: another replica is running on this database and the two cannot share it. */
export class ReplicaConflictError extends TollgateError {
  constructor(message: string) {
    super(message, 409, 'tollgate_replica_conflict');
  }
}

/** A held replica lock; `release()` ends its connection. */
export interface ReplicaGuard {
  release(): Promise<void>;
}

/**
 * Takes this replica's lock or refuses to start.
 * @param sharedScheduler whether this replica schedules through Redis (`REDIS_URL` set).
 * @throws ReplicaConflictError naming `REDIS_URL` and the other replicas (their `application_name` and address).
 */
export async function guardReplicas(
  open: Pick<OpenPostgres, 'pool'>,
  options: { sharedScheduler: boolean; logger?: DatabaseLogger },
): Promise<ReplicaGuard> {
  let client = await lockedClient(open, options.sharedScheduler);
  let released = false;
  // The lock lives as long as its connection: when the connection is lost (pg_terminate_backend, a failover), take it
  // again on a new one. A refusal then can no longer stop this process, so it is logged loudly instead.
  const watch = (c: pg.Client) =>
    c.on('error', (error) => {
      // Every client keeps this listener (an 'error' event without one would crash the process); only the current
      // one's loss triggers a new lock.
      if (released || c !== client) return;
      options.logger?.warn({ err: describeError(error) }, 'replica lock connection lost; taking the lock again');
      void (async () => {
        for (let attempt = 1; !released; attempt++) {
          try {
            client = await lockedClient(open, options.sharedScheduler);
            watch(client);
            return;
          } catch (retryError) {
            options.logger?.warn({ err: describeError(retryError), attempt }, 'replica lock not taken again yet');
            await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * attempt, 10_000)).unref());
          }
        }
      })();
    });
  watch(client);
  return {
    async release() {
      released = true;
      await client.end().catch(() => undefined);
    },
  };
}

/** A new connection holding the replica lock (shared or exclusive). */
async function lockedClient(open: Pick<OpenPostgres, 'pool'>, shared: boolean): Promise<pg.Client> {
  const client = new pg.Client({ ...open.pool.options, keepAlive: true });
  try {
    await client.connect();
    const { rows } = await client.query<{ ok: boolean }>(
      `SELECT ${shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock'}($1) AS ok`,
      [REPLICA_LOCK],
    );
    if (rows[0]?.ok) return client;
    const others = await client.query<{ who: string; exclusive: boolean }>(
      `SELECT coalesce(nullif(a.application_name, ''), 'pid ' || a.pid) || coalesce(' from ' || host(a.client_addr), '') AS who, l.mode = 'ExclusiveLock' AS exclusive
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.granted AND l.pid <> pg_backend_pid()`,
      [REPLICA_LOCK],
    );
    const who = others.rows.map((r) => r.who).join(', ') || 'another tollgate';
    throw new ReplicaConflictError(
      shared
        ? `a tollgate replica without REDIS_URL is running on this database (${who}): replicas sharing a database must all set REDIS_URL, or that replica's in-process scheduler would post every card a second time. Set REDIS_URL on it and restart it.`
        : `another tollgate replica is running on this database (${who}) and this one has no REDIS_URL: replicas sharing a database need REDIS_URL (one shared BullMQ scheduler), or each would post every card and expire every request once per replica. Set REDIS_URL on every replica.`,
    );
  } catch (error) {
    await client.end().catch(() => undefined);
    throw fromPostgresError(error);
  }
}
