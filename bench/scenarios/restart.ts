/**
 * @module bench/scenarios/restart
 * `restart_100k.ready_s`: a gateway started on a file holding 100,000 pending rows, 10,000 of them overdue. Ready
 * means listening and `/readyz` answering 200; the figure counts from spawning the process. The overdue rows must be
 * expired by then (checked by reading the file).
 */
import { Database } from '../../src/stores/sqlite/driver.js';
import { join } from 'node:path';
import type { Scenario } from '../context.js';
import type { BenchPostgres } from '../postgres.js';
import { startGateway } from '../processes.js';
import { rssMb } from '../proc.js';
import { seedForMode } from '../seed-pending.js';
import { round, sleep } from '../stats.js';

/** Polls `/readyz` until it answers 200; resolves with the time it did (`performance.now()`). */
export async function readyAt(url: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return performance.now();
    await sleep(20);
  }
  throw new Error(`/readyz not 200 within ${timeoutMs} ms`);
}

/** Reads the overdue-still-pending, expired and pending counts back from the SQLite file or the PostgreSQL database. */
async function countRows(
  pg: BenchPostgres | null,
  db: string,
  overdueBefore: Date,
): Promise<{ overdueLeft: number; expired: number; pending: number }> {
  const overdueSql = `SELECT count(*) AS n FROM confirmation_requests WHERE status = 'pending' AND expires_at <= `;
  const expiredSql = `SELECT count(*) AS n FROM confirmation_requests WHERE status = 'expired'`;
  const pendingSql = `SELECT count(*) AS n FROM confirmation_requests WHERE status = 'pending'`;
  if (pg) {
    return {
      overdueLeft: await pg.count(db, `${overdueSql}$1`, [overdueBefore]),
      expired: await pg.count(db, expiredSql),
      pending: await pg.count(db, pendingSql),
    };
  }
  const sqlite = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const count = (sql: string, ...args: unknown[]) => (sqlite.prepare(sql).get(...args) as { n: number }).n;
    return {
      overdueLeft: count(`${overdueSql}?`, overdueBefore.toISOString()),
      expired: count(expiredSql),
      pending: count(pendingSql),
    };
  } finally {
    sqlite.close();
  }
}

/** `restart_100k.{ready_s, overdue_left}`. */
export const restartScenario: Scenario = {
  name: 'restart_100k',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const rows = ctx.quick ? 20_000 : 100_000;
    const seed = await seedForMode(ctx, 'restart', rows, rows / 10);
    const dbPath = seed.db;
    ctx.log(
      `restart: seeded ${rows} rows in ${round(seed.seconds, 1)} s${ctx.pg ? `, copied to PostgreSQL in ${round(seed.copySeconds, 1)} s` : ''}`,
    );
    const spawned = performance.now();
    const gateway = await startGateway({
      dbPath,
      env: ctx.gatewayEnv,
      startTimeoutMs: 300_000,
      cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-restart`) : undefined,
    });
    const listening = performance.now();
    try {
      const ready = await readyAt(gateway.url, 300_000);
      const { overdueLeft, expired, pending } = await countRows(ctx.pg, dbPath, seed.overdueBefore);
      if (overdueLeft) ctx.log(`restart: ${overdueLeft} overdue rows still pending when ready`);
      return {
        restart_100k: {
          ready_s: round((ready - spawned) / 1000, 2),
          listening_s: round((listening - spawned) / 1000, 2),
          rows,
          overdue_left: overdueLeft,
          expired,
          pending,
          rss_mb: round(rssMb(gateway.pid), 0),
        },
      };
    } finally {
      await gateway.stop(20_000);
    }
  },
};
