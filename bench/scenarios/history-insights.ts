/**
 * @module bench/scenarios/history-insights
 * The insights figures of `history.*` (issues 45 and 62), through the gateway on the seeded history, over its newest
 * 90 days, one request at a time from this process (each is one read, not a load):
 * - `insights_rollup_ms`: every `by=` dimension from a fresh rollup (`fresh`: p99 of all the answers, goal 100 ms)
 *   and with none (`none`: the rollup dropped before each dimension's one answer, which builds it on demand; goal
 *   1 s), and `refresh_8d_ms`, a refresh of the rollup's last 8 days run from this process on the same database
 *   (median of three; goal 1 s);
 * - `insights_90d_ms` (by tool and by person, the best of three) as before, from the rollup now;
 * - `simulate_rows_per_s`: a candidate policy replayed over the window.
 */
import type { BenchContext } from '../context.js';
import { BENCH_TOKEN, type ServerProcess } from '../processes.js';
import type { HistorySeed } from '../seed.js';
import { round, summarize } from '../stats.js';
import { dayOf } from '../../src/insights/rollup.js';
import { INSIGHTS_DIMENSIONS, type InsightsStore } from '../../src/insights/types.js';

/** A candidate policy for the replay: a glob and a CEL condition to evaluate on most rows, a deny, the default ask. */
export const CANDIDATE = `policies:
  - name: reads
    match: { tool: "tool.1*", when: 'has(args.table) && args.table.startsWith("t1")' }
    decision: allow
  - name: no-tool-3
    match: { tool: tool.3 }
    decision: deny
`;

const DAY_MS = 86_400_000;

/** The database's insights store opened from this process, and a way to drop its rollup (the "none" case). */
async function openInsights(ctx: BenchContext, db: string) {
  if (ctx.pg) {
    const [{ openPostgres }, { PostgresInsights }] = await Promise.all([
      import('../../src/stores/postgres/database.js'),
      import('../../src/stores/postgres/insights.js'),
    ]);
    const open = openPostgres(db, { poolSize: 2 });
    return {
      store: new PostgresInsights(open) as InsightsStore,
      drop: async () => void (await open.pool.query('DELETE FROM insights_rollup_state')),
      close: () => open.pool.end(),
    };
  }
  const [{ openDatabase }, { SqliteInsights }] = await Promise.all([
    import('../../src/stores/sqlite/database.js'),
    import('../../src/stores/sqlite/insights.js'),
  ]);
  const open = openDatabase(db);
  return {
    store: new SqliteInsights(open) as InsightsStore,
    drop: () => Promise.resolve(void open.sqlite.exec('DELETE FROM insights_rollup_state')),
    close: () => Promise.resolve(open.close()),
  };
}

/** The insights and replay figures on the running `gateway` over `db` (see the module's description). */
export async function insightsFigures(
  ctx: BenchContext,
  gateway: ServerProcess,
  seed: HistorySeed,
  db: string,
): Promise<Record<string, unknown>> {
  const window = `since=${new Date(seed.to.getTime() - 90 * DAY_MS).toISOString()}&until=${seed.to.toISOString()}`;
  const timed = async (path: string, init?: RequestInit) => {
    const started = performance.now();
    const res = await fetch(`${gateway.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, ...(init?.headers as Record<string, string>) },
    });
    if (res.status !== 200) throw new Error(`${path} -> ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return { body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
  };
  const ask = async (by: string) => (await timed(`/v1/insights?by=${by}&${window}`)).ms;
  const insights = await openInsights(ctx, db);
  let rollup: Record<string, unknown>;
  try {
    // With none: each dimension's answer builds the rollup on demand (every day of the history before today).
    const none: Record<string, number> = {};
    for (const by of INSIGHTS_DIMENSIONS) {
      await insights.drop();
      none[by] = round(await ask(by), 1);
    }
    // A refresh of the last 8 days, as the sweep's runs after a day turns (the seed's pending rows span the year, where
    // a real history's deadlines bound them to the last days: `from` holds it to the 8 the goal names).
    const refreshes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const now = Date.now();
      await insights.store.refreshRollup({ from: dayOf(now - 8 * DAY_MS), through: dayOf(now) }, new Date(now));
      refreshes.push(performance.now() - started);
    }
    const fresh: number[] = [];
    const byDimension: Record<string, number> = {};
    for (const by of INSIGHTS_DIMENSIONS) {
      const times: number[] = [];
      for (let rep = 0; rep < (ctx.quick ? 3 : 10); rep++) times.push(await ask(by));
      fresh.push(...times);
      byDimension[by] = summarize(times).p99;
    }
    rollup = {
      insights_rollup_ms: {
        fresh: summarize(fresh).p99,
        none: Math.max(...Object.values(none)),
        fresh_by: byDimension,
        none_by: none,
      },
      refresh_8d_ms: round([...refreshes].sort((a, b) => a - b)[1]!, 1),
    };
  } finally {
    await insights.close();
  }
  const best = async (by: string) => Math.min(await ask(by), await ask(by), await ask(by));
  const replay = await timed(`/v1/policy/simulate?${window}`, {
    method: 'POST',
    body: CANDIDATE,
    headers: { 'content-type': 'application/yaml' },
  });
  const replayed = replay.body.replayed as number;
  return {
    ...rollup,
    insights_90d_ms: { tool: round(await best('tool'), 0), person: round(await best('person'), 0) },
    simulate_rows: replayed,
    simulate_s: round(replay.ms / 1000, 2),
    simulate_rows_per_s: Math.round(replayed / (replay.ms / 1000)),
  };
}
