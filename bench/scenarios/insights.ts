/**
 * @module bench/scenarios/insights
 * `insights.*` (issue 45, part of `npm run bench -- --history`): the insights reads and a policy replay, in process,
 * on a seeded SQLite year of its own (`--history-rows`, at most 1 million: the 10-million history is `history.*`'s,
 * measured through the gateway). Each figure is the median of three runs, in wall time and in CPU time: on a shared
 * machine the wall clock measures the neighbours as much as the code, and the CPU time is what stays comparable.
 * - `insights_90d`: `insightsReads` for the newest 90 days by tool and by person (both statements, as the worker runs
 *   them), on a read-only connection with the worker's small page cache;
 * - `simulate`: the bench candidate (`history.ts`'s) replayed over the same window through `InsightsStore.replay`.
 */
import { join } from 'node:path';
import type { Scenario } from '../context.js';
import { seedHistory } from '../seed.js';
import { round } from '../stats.js';
import { CANDIDATE } from './history-insights.js';
import { loadCandidate, simulate } from '../../src/insights/simulate.js';
import { openDatabase } from '../../src/stores/sqlite/database.js';
import { Database } from '../../src/stores/sqlite/driver.js';
import { insightsReads, SqliteInsights } from '../../src/stores/sqlite/insights.js';

/** Wall and CPU milliseconds of `fn`, and what it returned. */
async function timed<T>(fn: () => T | Promise<T>): Promise<{ wallMs: number; cpuMs: number; value: T }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Three runs of `fn`: the medians of their wall and CPU times, and the last value. */
async function medianOf3<T>(fn: () => T | Promise<T>): Promise<{ wallMs: number; cpuMs: number; value: T }> {
  const runs = [await timed(fn), await timed(fn), await timed(fn)];
  return { wallMs: median(runs.map((r) => r.wallMs)), cpuMs: median(runs.map((r) => r.cpuMs)), value: runs[2]!.value };
}

/** `insights.*` on a seeded year: see the module's description. */
export const insightsScenario: Scenario = {
  name: 'insights',
  modes: ['sqlite'],
  async run(ctx) {
    const rows = ctx.quick ? 20_000 : Math.min(ctx.historyRows, 1_000_000);
    const file = join(ctx.tmp, 'insights.db');
    const seed = seedHistory(file, { rows });
    // A card delivered as each request is filed (as the web inbox writes it), so each decided row has a delivery.
    const open = openDatabase(file);
    open.sqlite.exec(
      "INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) SELECT id, 'delivered', NULL, 'web', '{}', created_at FROM confirmation_requests ORDER BY created_at",
    );
    ctx.log(`insights: seeded ${rows.toLocaleString('en-US')} requests in ${round(seed.seconds, 1)} s`);
    const window = { since: new Date(seed.to.getTime() - 90 * 86_400_000), until: seed.to };
    try {
      const reader = new Database(file, { readonly: true });
      reader.pragma('cache_size = -4096');
      const insights: Record<string, unknown> = {};
      try {
        for (const by of ['tool', 'person'] as const) {
          const reads = insightsReads({ ...window, by, limit: 100 });
          const t = await medianOf3(() => reads.map((r) => reader.prepare(r.sql).all(r.params)));
          insights[by] = { wall_ms: round(t.wallMs, 0), cpu_ms: round(t.cpuMs, 0) };
        }
      } finally {
        reader.close();
      }
      const store = new SqliteInsights(open);
      const replay = await medianOf3(() => simulate(loadCandidate(CANDIDATE), store.replay(window), window));
      const replayed = replay.value.replayed;
      return {
        insights: {
          rows,
          window_rows: replayed,
          insights_90d: insights,
          simulate_rows_per_s: Math.round(replayed / (replay.wallMs / 1000)),
          simulate_rows_per_cpu_s: Math.round(replayed / (replay.cpuMs / 1000)),
        },
      };
    } finally {
      open.close();
    }
  },
};
