/**
 * @module bench/scenarios/history
 * `history.*` (issue 35, `npm run bench -- --history`): the gateway on a big history. Seeds `--history-rows` requests
 * (default 10 million) with their events and cards — batched SQLite transactions, or set-based batches on PostgreSQL
 * (`bench/seed-postgres.ts`) — writes what that left dirty to disk (see `settle`), reads a SQLite file once into the
 * OS page cache (see `readOnce`), then, through a gateway running on it:
 * - the create load and decision → resume, against the same two on an empty database measured first in this run
 *   (`history.empty`);
 * - the list API's filters (first page and a page ten cursors deep) and the inbox's "waiting for me" list
 *   (`history.query_ms`: the p99 of the slowest of them);
 * - the export route over the newest 1 million seeded rows: rows per second and the gateway's RSS growth;
 * - insights over the newest 90 days, every `by=`, from a fresh rollup and with none, the rollup's refresh of the last
 *   8 days, and a candidate policy replayed over them (issues 45 and 62: `history-insights.ts`);
 * - then stops it, adds pending requests up to a tenth of the history (1 million of 10 million) and times a restart
 *   until `/readyz` answers (`history.restart_1m.ready_s`).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { freshGateway, type BenchContext, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import { BENCH_TOKEN, startGateway, type ServerProcess } from '../processes.js';
import { rssMb, rssSampler } from '../proc.js';
import type { ClientTask } from '../protocol.js';
import { keptHistorySeed } from '../seed-cache.js';
import { seedHistoryPostgres } from '../seed-postgres.js';
import { seedHistory, type HistorySeed, type HistorySeedOptions } from '../seed.js';
import { round, summarize } from '../stats.js';
import { measureCreates } from './create-rps.js';
import { measureDecisions } from './decision-resume.js';
import { readyAt } from './restart.js';
import { insightsFigures } from './history-insights.js';

/** Parameters of the `queries` client task. */
interface QueryParams {
  url: string;
  token: string;
  /** Name → path of the first page (a list path is followed by its `next_cursor` ten pages deep). */
  queries: Record<string, string>;
  reps: number;
}

/**
 * Times each list query's first page and nine cursor pages after it, `reps` times (at least three, then only while
 * that query has taken under 15 s); the inbox as it is. Each query's first two pages run once untimed before: the
 * process's first list request compiles the code it runs (~25 ms, whatever the history's size), which with twenty
 * rounds would be the first query's p99 alone. That first request's time is `cold_ms`, reported beside.
 */
const queries: ClientTask = async (raw) => {
  const p = raw as unknown as QueryParams;
  const http = new BenchHttp(p.url, p.token, 1);
  const byQuery: Record<string, { first: number[]; deep: number[] }> = {};
  let coldMs: number | null = null;
  try {
    for (const path of Object.values(p.queries)) {
      let next: string | null = path;
      for (let page = 0; page < 2 && next; page++) {
        const started = performance.now();
        const res = await http.send('GET', next);
        if (res.status !== 200) throw new Error(`GET ${next} -> ${res.status}: ${res.body.slice(0, 300)}`);
        coldMs ??= res.doneAt - started;
        const cursor = (JSON.parse(res.body) as { next_cursor?: string | null }).next_cursor;
        next = cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : null;
      }
    }
    for (const [name, path] of Object.entries(p.queries)) {
      const own = (byQuery[name] = { first: [] as number[], deep: [] as number[] });
      const began = performance.now();
      // A query far over its goal (a filter scanning millions of rows) gets three rounds, not twenty.
      for (let rep = 0; rep < p.reps && (rep < 3 || performance.now() - began < 15_000); rep++) {
        let next: string | null = path;
        for (let page = 0; page < 10 && next; page++) {
          const started = performance.now();
          const res = await http.send('GET', next);
          if (res.status !== 200) throw new Error(`GET ${next} -> ${res.status}: ${res.body.slice(0, 300)}`);
          (page === 0 ? own.first : own.deep).push(res.doneAt - started);
          const cursor = (JSON.parse(res.body) as { next_cursor?: string | null }).next_cursor;
          next = cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : null;
        }
      }
    }
    const timed = Object.entries(byQuery).map(([name, t]) => [
      name,
      {
        first_p99: summarize(t.first).p99,
        deep_p99: t.deep.length ? summarize(t.deep).p99 : null,
        all: [...t.first, ...t.deep],
      },
    ]);
    return { byQuery: Object.fromEntries(timed), coldMs };
  } finally {
    http.close();
  }
};

/** Streams `GET path` to the end, counting lines (NDJSON: one per request); never holds the body. */
const exportRows: ClientTask = async (raw) => {
  const p = raw as unknown as { url: string; token: string; path: string };
  const url = new URL(p.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: Number(url.port), path: p.path, headers: { authorization: `Bearer ${p.token}` } },
      (res) => {
        let lines = 0;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ lines, bytes, seconds: (performance.now() - started) / 1000 })
            : reject(new Error(`GET ${p.path} -> ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { queries, exportRows };

/** Seeds `db` (a SQLite file or a postgres:// URL) in this mode's way. */
function seedFor(ctx: BenchContext, db: string, options: HistorySeedOptions): Promise<HistorySeed> {
  return ctx.pg ? seedHistoryPostgres(db, options) : Promise.resolve(seedHistory(db, options));
}

/** Creates then decisions on a running gateway: the pair compared between an empty database and the history. */
async function hotPath(ctx: BenchContext, gateway: ServerProcess) {
  const creates = await measureCreates(ctx, gateway);
  const decisions = await measureDecisions(ctx, gateway, ctx.quick ? 200 : 1000);
  return { create_rps: creates.create_rps, create_latency_ms_at_64: creates.create_latency_ms_at_64, ...decisions };
}

/** The list API's filters and the inbox, each with a first page and (lists) a deep cursor page. */
function queryPaths(seed: HistorySeed): Record<string, string> {
  const day = 86_400_000;
  const month = (n: number) => new Date(seed.to.getTime() - n * 30 * day).toISOString();
  return {
    // Seeded row i has tool i % 40 and status by i % 5 (one in 1,000 pending, i % 1000 = 999): these pairs match rows.
    'status=pending&tool_name': '/v1/requests?status=pending&tool_name=tool.39&limit=50',
    'status=approved&tool_name': '/v1/requests?status=approved&tool_name=tool.5&limit=50',
    'status=denied&tool_name': '/v1/requests?status=denied&tool_name=tool.7&limit=50',
    // ...and this one matches none (tool.7 is never approved): an auditor's filter may well find nothing.
    'status&tool_name, no match': '/v1/requests?status=approved&tool_name=tool.7&limit=50',
    'status=denied': '/v1/requests?status=denied&limit=50',
    tool_name: '/v1/requests?tool_name=tool.11&limit=50',
    agent_id: '/v1/requests?agent_id=agent-4&limit=50',
    responded_by: '/v1/requests?responded_by=slack%3AU5&limit=50',
    'since&until': `/v1/requests?since=${month(6)}&until=${month(5)}&limit=50`,
    none: '/v1/requests?limit=50',
    inbox: '/v1/inbox?as=web%3Aalice&limit=100',
  };
}

/**
 * Writes every dirty page of the OS cache to disk (`sync`) and returns the seconds it took. Seeding or copying 10
 * million rows writes ~20 GB (SQLite: the file and its kept copy); what the kernel had not written back yet would be
 * written during the measured phases, each commit's fsync waiting behind it, where a server whose history grew over a
 * year has no such backlog. (On the thirteenth round's machine the copy had been written by the time it returned:
 * 0 s.)
 */
function settle(): number {
  const started = performance.now();
  execFileSync('sync');
  return (performance.now() - started) / 1000;
}

/**
 * Reads a SQLite file (and its WAL) once from start to end, so the OS page cache holds it as a server's that has run a
 * while does: 10 million rows are ~20 GB, and right after seeding or copying them on a 24 GB machine most pages of the
 * new file were not cached (the copy's source took half the cache), which made the figures the disk's (list pages
 * 77–196 ms, export 31k rows/s). Returns the seconds it took.
 */
function readOnce(file: string): number {
  const started = performance.now();
  const buffer = Buffer.allocUnsafe(8 << 20);
  for (const path of [file, `${file}-wal`]) {
    if (!existsSync(path)) continue;
    const fd = openSync(path, 'r');
    try {
      while (readSync(fd, buffer, 0, buffer.length, null) > 0);
    } finally {
      closeSync(fd);
    }
  }
  return (performance.now() - started) / 1000;
}

/** `history.*` on the seeded database: see the module's description. */
export const historyScenario: Scenario = {
  name: 'history',
  modes: ['sqlite', 'postgres'],
  async run(ctx) {
    const rows = ctx.historyRows;
    const empty = await freshGateway(ctx, 'history_empty');
    const emptyFigures = await hotPath(ctx, empty).finally(() => empty.stop());

    const db = ctx.pg ? await ctx.pg.fresh('history') : join(ctx.tmp, 'history.db');
    const seed = await keptHistorySeed(ctx, ctx.historySeedDir, db, rows, () => seedFor(ctx, db, { rows }));
    ctx.log(
      `history: ${seed.reused ? 'copied' : 'seeded'} ${rows.toLocaleString('en-US')} requests (${seed.events.toLocaleString('en-US')} events) in ${round(seed.seconds, 1)} s`,
    );
    const settleS = settle();
    ctx.log(`history: wrote the OS's dirty pages to disk in ${round(settleS, 1)} s`);
    const warmS = ctx.pg ? null : readOnce(db);
    if (warmS !== null) ctx.log(`history: read the database once into the OS page cache in ${round(warmS, 1)} s`);
    const gateway = await startGateway({
      dbPath: db,
      env: ctx.gatewayEnv,
      startTimeoutMs: 600_000,
      cpuProfDir: ctx.profileDir ? join(ctx.profileDir, `${ctx.mode}-history`) : undefined,
    });
    let figures: Record<string, unknown>;
    try {
      const busy = await hotPath(ctx, gateway);
      const { byQuery, coldMs } = await ctx.client.run<{
        byQuery: Record<string, { first_p99: number; deep_p99: number | null; all: number[] }>;
        coldMs: number;
      }>('history', 'queries', {
        url: gateway.url,
        token: BENCH_TOKEN,
        queries: queryPaths(seed),
        reps: ctx.quick ? 5 : 20,
      });
      const worst = Math.max(...Object.values(byQuery).flatMap((q) => [q.first_p99, q.deep_p99 ?? 0]));

      // The newest `exportRows` seeded rows (seeded evenly over the span), leaving out the creates made above.
      const exportWanted = Math.min(rows, 1_000_000);
      const since = new Date(seed.to.getTime() - ((seed.to.getTime() - seed.from.getTime()) * exportWanted) / rows);
      const rssBefore = rssMb(gateway.pid);
      const rss = rssSampler(gateway.pid, 50);
      const exported = await ctx.client
        .run<{ lines: number; bytes: number; seconds: number }>('history', 'exportRows', {
          url: gateway.url,
          token: BENCH_TOKEN,
          path: `/v1/requests/export?format=ndjson&since=${since.toISOString()}&until=${seed.to.toISOString()}`,
        })
        .finally(() => rss.stop());
      figures = {
        rows,
        // A kept seed's copy is no seeding rate: left out, with where it came from.
        ...(seed.reused
          ? { seed_reused: true, seed_copy_s: round(seed.seconds, 1) }
          : { seed_s: round(seed.seconds, 1), seed_rows_per_s: Math.round(rows / seed.seconds) }),
        events: seed.events,
        writeback_s: round(settleS, 1),
        ...(warmS === null ? {} : { page_cache_read_s: round(warmS, 1) }),
        empty: emptyFigures,
        create_rps: busy.create_rps,
        create_latency_ms_at_64: busy.create_latency_ms_at_64,
        decision_to_resume_ms: busy.decision_to_resume_ms,
        decision_rtt_ms: busy.decision_rtt_ms,
        query_ms: {
          p99: round(worst, 2),
          p99_all: summarize(Object.values(byQuery).flatMap((q) => q.all)).p99,
          cold_ms: round(coldMs, 2),
          by_query: Object.fromEntries(
            Object.entries(byQuery).map(([name, q]) => [name, { first_p99: q.first_p99, deep_p99: q.deep_p99 }]),
          ),
        },
        export_rows: exported.lines,
        export_mb: round(exported.bytes / 1024 / 1024, 0),
        export_s: round(exported.seconds, 2),
        export_rows_per_s: Math.round(exported.lines / exported.seconds),
        export_rss_growth_mb: round(rss.peak() - rssBefore, 1),
        ...(await insightsFigures(ctx, gateway, seed, db)),
      };
    } finally {
      await gateway.stop(30_000);
    }

    // A tenth of the history pending (1 million of 10 million), then a restart on it.
    const pending = Math.max(1, Math.round(rows / 10));
    const added = await seedFor(ctx, db, { rows: pending, pendingOnly: true });
    ctx.log(
      `history: added ${pending.toLocaleString('en-US')} pending requests in ${round(added.seconds, 1)} s; restarting`,
    );
    const spawned = performance.now();
    const restarted = await startGateway({ dbPath: db, env: ctx.gatewayEnv, startTimeoutMs: 600_000 });
    try {
      const ready = await readyAt(restarted.url, 600_000);
      figures.restart_1m = {
        ready_s: round((ready - spawned) / 1000, 2),
        pending: pending + seed.pending,
        rss_mb: round(rssMb(restarted.pid), 0),
      };
    } finally {
      await restarted.stop(30_000);
    }
    return { history: figures };
  },
};
