/**
 * @module bench/scenarios/audit-backlog
 * `audit.backlog_*` (issue 57): whether the audit integrator keeps every event within the stated merge delay
 * (`TOLLGATE_AUDIT_MAX_DELAY`, default 2 s) under a steady load. Requests are filed at 1,000 a second, open loop
 * (`pacedPosts`, as `events.sustained_*`: the load does not slow down when the gateway does), for 20 s after 2 s of
 * warm-up (5 s after 1 s with `--quick`), on a fresh gateway. Every 100 ms the orchestrator samples the backlog's age:
 * now less the `at` of the oldest event committed and not yet placed.
 *
 * - `audit.backlog_age_ms` — read from the database (the very query behind the gateway's gauge), p50 / p99 / max of
 *   the samples: the backlog's age at a random moment. Goal: p99 ≤ the merge delay.
 * - `audit.backlog_metrics_age_ms` — the same age as the gateway exports it (`tollgate_audit_backlog_age_seconds` on
 *   `/metrics`), read one scrape after the other. The gauge is fine enough (`at` is kept to the millisecond on both
 *   stores), but a scrape waits its turn behind the load in the gateway's event loop: on a saturated gateway (a quick
 *   run at load 9 on 2 cores) one scrape took 6.5 s, so the samples thin out exactly when the backlog could grow.
 *   The goal is judged on the database's samples, which no busy gateway delays; this one shows the export agrees.
 * - `audit.backlog_events_max` — events pending at the peak (database samples).
 * - `audit.backlog_creates_per_s` — what the load reached (below 1,000 the figures describe a lighter load).
 */
import pg from 'pg';
import { BACKLOG } from '../../src/stores/postgres/audit-chain.js';
import { Database } from '../../src/stores/sqlite/driver.js';
import { freshDatabase, type BenchContext } from '../context.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN, startGateway } from '../processes.js';
import { round, sleep, summarize } from '../stats.js';
import { CREATE_BODY } from './create-rps.js';
import { pacedPosts, type PacedParams, type PacedResult } from './events-sustained.js';

const SAMPLE_EVERY_MS = 100;
/** The SQLite store's backlog query (`SqliteAuditChain.pending`). */
const SQLITE_BACKLOG = 'SELECT count(*) AS events, min(at) AS oldestAt FROM confirmation_events WHERE seq IS NULL';

const paced: ClientTask = async (raw, ask) => pacedPosts(raw as unknown as PacedParams, ask);

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { paced };

interface Backlog {
  events: number;
  oldestAt: string | null;
}

/** Reads the backlog from the database `db` (a SQLite file, read-only, or a postgres:// URL), outside the gateway. */
async function databaseBacklog(db: string): Promise<{ read(): Promise<Backlog>; close(): Promise<void> }> {
  if (db.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    return { read: async () => (await client.query<Backlog>(BACKLOG)).rows[0]!, close: () => client.end() };
  }
  const sqlite = new Database(db, { readonly: true, fileMustExist: true });
  const statement = sqlite.prepare<[], Backlog>(SQLITE_BACKLOG);
  return { read: async () => statement.get()!, close: async () => void sqlite.close() };
}

/** A gauge's value on a /metrics page (NaN when absent). */
function gauge(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/**
 * Calls `read` every {@link SAMPLE_EVERY_MS} until `stopped()`, paced by the clock (a read's own time does not thin
 * the samples out; after one slower than the interval the next follows at once, without a burst to catch up).
 */
async function every(stopped: () => boolean, read: () => Promise<void>): Promise<void> {
  for (let due = performance.now(); !stopped(); due = Math.max(due + SAMPLE_EVERY_MS, performance.now())) {
    await read();
    const wait = due + SAMPLE_EVERY_MS - performance.now();
    if (wait > 0) await sleep(wait);
  }
}

/** The `audit.backlog_*` figures, on a fresh gateway in this mode. */
export async function auditBacklogFigures(ctx: BenchContext): Promise<Record<string, unknown>> {
  const db = await freshDatabase(ctx, 'audit-backlog');
  const gateway = await startGateway({ dbPath: db, env: ctx.gatewayEnv });
  const backlog = await databaseBacklog(db).catch(async (error: unknown) => {
    await gateway.stop();
    throw error;
  });
  const ages: number[] = [];
  const exported: number[] = [];
  let eventsMax = 0;
  let stopped = false;
  const isStopped = () => stopped;
  let sampling: Promise<unknown> | null = null;
  let failed: unknown = null;
  const fromDatabase = async () => {
    const { events, oldestAt } = await backlog.read();
    ages.push(oldestAt ? Math.max(0, Date.now() - Date.parse(oldestAt)) : 0);
    eventsMax = Math.max(eventsMax, Number(events));
  };
  const fromMetrics = async () => {
    const age = gauge(await (await fetch(`${gateway.url}/metrics`)).text(), 'tollgate_audit_backlog_age_seconds');
    if (!Number.isFinite(age)) throw new Error('/metrics has no tollgate_audit_backlog_age_seconds');
    exported.push(age * 1000);
  };
  try {
    const load = await ctx.client.run<PacedResult>(
      'audit-backlog',
      'paced',
      {
        url: gateway.url,
        token: BENCH_TOKEN,
        rate: 1000,
        warmupMs: ctx.quick ? 1000 : 2000,
        durationMs: ctx.quick ? 5000 : 20_000,
        maxInFlight: 256,
        body: CREATE_BODY,
        path: '/v1/requests',
      } satisfies PacedParams,
      {
        mark: (edge) => {
          // Held until the load ends: a failed read must not reject with nobody listening.
          if (edge === 'start')
            sampling = Promise.all([every(isStopped, fromDatabase), every(isStopped, fromMetrics)]).catch(
              (error: unknown) => {
                failed = error;
                stopped = true;
              },
            );
          else stopped = true;
          return null;
        },
      },
    );
    await sampling;
    if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
    const errors = Object.entries(load.by_status).filter(([status]) => status !== '201');
    if (errors.length || load.missed)
      ctx.log(
        `audit backlog: non-201 answers ${JSON.stringify(Object.fromEntries(errors))}, ${load.missed} requests not sent (all 256 in flight)`,
      );
    const pick = (samples: number[]) => {
      const q = summarize(samples);
      return { p50: round(q.p50, 0), p99: round(q.p99, 0), max: round(q.max, 0), n: q.n };
    };
    return {
      audit: {
        backlog_age_ms: pick(ages),
        backlog_metrics_age_ms: pick(exported),
        backlog_events_max: eventsMax,
        backlog_creates_per_s: load.per_s,
      },
    };
  } finally {
    stopped = true;
    await backlog.close();
    await gateway.stop(5000);
  }
}
