/**
 * The bench's verdicts over several runs: a goal relative to the floor is judged run by run against that run's own
 * floor (the median margin decides), never one run's figure against another run's floor.
 */
import { describe, expect, it } from 'vitest';
import { buildResults, judgeByRuns, type GoalRow, type RunInfo } from '../../../bench/report.js';
import { medianOfRuns } from '../../../bench/stats.js';

const info: RunInfo = { startedAt: '2026-11-23T00:00:00.000Z', durationS: 1, loadBefore: { loadavg1: 0, cores: 2 }, loadAfter: { loadavg1: 0, cores: 2 }, quick: false, gateway: 'test', runs: 3, failures: [] };

function run(floorRps: number, createRps: number, decisionP99: number, overdueLeft = 0) {
  return {
    sqlite: {
      floor: { http_rps: floorRps, http_rtt_ms: { p50: 0.2, p99: 1.5 } },
      create_rps: createRps,
      decision_to_resume_ms: { p50: 0.9, p99: decisionP99 },
      restart_100k: { ready_s: 1.4, overdue_left: overdueLeft },
    },
    bullmq: {},
    postgres: {},
  };
}

function judged(runs: ReturnType<typeof run>[]): { median: GoalRow[]; byRuns: GoalRow[] } {
  const median = buildResults(medianOfRuns(runs), info).table as GoalRow[];
  const byRuns = structuredClone(median);
  judgeByRuns(byRuns, runs.map((r) => buildResults(r, info).table as GoalRow[]));
  return { median, byRuns };
}

const row = (rows: GoalRow[], figure: string) => rows.find((r) => r.figure === figure)!;

describe('judgeByRuns', () => {
  it("judges a share of the floor against each run's own floor", () => {
    // 34 %, 54 % and 52 % of their own floors; the median create (6,682) is under half the median floor (13,792).
    const { median, byRuns } = judged([run(18731, 6350, 5), run(13792, 7471, 5), run(12933, 6682, 5)]);
    expect(row(median, 'create_rps').verdict).toBe('miss');
    const create = row(byRuns, 'create_rps');
    expect(create).toMatchObject({ value: 6682, verdict: 'pass', runs: [6350, 7471, 6682], runLimits: [9366, 6896, 6467] });
    expect(create.goal).toContain("each run's: 9,366 / 6,896 / 6,467");
  });

  it('misses when most runs fall short of their own floor', () => {
    const { byRuns } = judged([run(13000, 6400, 5), run(14000, 6900, 5), run(12000, 6100, 5)]);
    expect(row(byRuns, 'create_rps')).toMatchObject({ verdict: 'miss', runs: [6400, 6900, 6100] });
  });

  it('gives a fixed limit the verdict of its median figure, and counts a run that failed a side check as a miss', () => {
    const { median, byRuns } = judged([run(13000, 7000, 4, 0), run(13000, 7000, 12, 3), run(13000, 7000, 9, 2)]);
    expect(row(byRuns, 'decision_to_resume_ms.p99')).toMatchObject({ verdict: 'pass', runs: [4, 12, 9] });
    expect(row(byRuns, 'decision_to_resume_ms.p99').verdict).toBe(row(median, 'decision_to_resume_ms.p99').verdict);
    expect(row(byRuns, 'decision_to_resume_ms.p99').runLimits).toBeUndefined();
    // Ready in 1.4 s every time, but two of the three restarts had not yet expired their overdue rows.
    expect(row(byRuns, 'restart_100k.ready_s')).toMatchObject({ value: 1.4, verdict: 'miss' });
  });
});

describe('buildResults: the durable floor and the history', () => {
  const both = {
    sqlite: { floor: { http_rps: 2000, http_rtt_ms: { p50: 0.2, p99: 1.5 }, durable_create_rps: 300 }, create_rps: 1100 },
    bullmq: {},
    postgres: { floor: { durable_create_rps: 450 }, create_rps: 400 },
  };

  it("judges create_rps against the bare floor and its own store's durable floor", () => {
    const rows = buildResults(both, info).table as GoalRow[];
    expect(row(rows, 'floor.durable_create_rps')).toMatchObject({ value: 300, verdict: 'info' });
    expect(row(rows, 'create_rps')).toMatchObject({ limit: 1000, verdict: 'pass' });
    expect(row(rows, 'create_rps vs durable floor')).toMatchObject({ value: 1100, limit: 300, floor: '300', verdict: 'pass' });
    // PostgreSQL: the run's bare floor (measured once, in sqlite mode), its own durable floor.
    expect(row(rows, 'postgres.floor.durable_create_rps')).toMatchObject({ value: 450 });
    expect(row(rows, 'postgres.create_rps')).toMatchObject({ limit: 600, verdict: 'miss' });
    expect(row(rows, 'postgres.create_rps vs durable floor')).toMatchObject({ limit: 450, verdict: 'miss' });
  });

  it('leaves the durable rows out when no durable floor was measured', () => {
    const rows = buildResults(run(2000, 1100, 5), info).table as GoalRow[];
    expect(rows.map((r) => r.figure).filter((f) => f.includes('durable'))).toEqual([]);
    expect(rows.map((r) => r.figure).filter((f) => f.startsWith('history'))).toEqual([]);
  });

  it('judges the history against the empty database measured beside it', () => {
    const history = {
      rows: 10_000_000,
      empty: { create_rps: 1000, decision_to_resume_ms: { p99: 4 } },
      create_rps: 880,
      decision_to_resume_ms: { p99: 4.3 },
      query_ms: { p99: 12 },
      export_rows_per_s: 90_000,
    };
    const rows = buildResults({ sqlite: { history }, bullmq: {}, postgres: {} }, info).table as GoalRow[];
    expect(row(rows, 'history.create_rps')).toMatchObject({ limit: 900, floor: '1000', verdict: 'miss' });
    expect(row(rows, 'history.decision_to_resume_ms.p99')).toMatchObject({ limit: 4.4, verdict: 'pass' });
    expect(row(rows, 'history.query_ms.p99')).toMatchObject({ limit: 20, verdict: 'pass' });
    expect(row(rows, 'history.export_rows_per_s')).toMatchObject({ verdict: 'miss' });
    // Not measured in this run (a history figure only `--history` measures): left out of the table.
    expect(rows.find((r) => r.figure === 'history.restart_1m.ready_s')).toBeUndefined();
  });
});
