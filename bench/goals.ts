/**
 * @module bench/goals
 * The shapes of the bench's goals, and the lists of goals that are the same in every mode: the floors, the micro
 * figures against a baseline, the history, two replicas. The goals of each mode are `perMode` in `report.ts`.
 */

/**
 * A goal: a fixed limit, or one relative to the floor of the same run — a multiple of it (`floorTimes`: a share of a
 * throughput floor, at most 1.5 times a memory floor, or a latency within some percent of a baseline) or a margin
 * over it (`floorPlus`, for latency).
 */
export type Goal =
  { op: '<=' | '>='; limit: number } | { op: '<=' | '>='; floorTimes: number } | { op: '<='; floorPlus: number };

/** One row of the table as the goals define it: the figure, its unit, its goal and the floor shown beside it. */
export interface GoalSpec {
  path: string;
  unit: string;
  goal?: Goal;
  /** Path of the floor figure shown next to it (and that a relative goal is measured against). */
  floor?: string;
  /** Where `floor` is read: the run's floors (default), or this mode's own figures (a baseline measured beside it). */
  floorIn?: 'floors' | 'mode';
  /** The row's name when it is not `path` (one figure judged against a second floor gets a second row). */
  label?: string;
  /** Left out of the table while its floor is unmeasured (a floor only some runs measure). */
  needsFloor?: boolean;
}

/**
 * `npm run bench -- --history` (issue 35): the same gateway on 10 million requests of history. Create and decision →
 * resume stay within 10 % of the same run on an empty database (`history.empty`, measured beside them).
 */
export const HISTORY: GoalSpec[] = [
  { path: 'history.rows', unit: '' },
  { path: 'history.seed_s', unit: 's' },
  {
    path: 'history.create_rps',
    unit: '/s',
    goal: { op: '>=', floorTimes: 0.9 },
    floor: 'history.empty.create_rps',
    floorIn: 'mode',
  },
  {
    path: 'history.decision_to_resume_ms.p99',
    unit: 'ms',
    goal: { op: '<=', floorTimes: 1.1 },
    floor: 'history.empty.decision_to_resume_ms.p99',
    floorIn: 'mode',
  },
  { path: 'history.query_ms.p99', unit: 'ms', goal: { op: '<=', limit: 20 } },
  // The process's first list request, untimed in the p99 above: it compiles the code the list runs.
  { path: 'history.query_ms.cold_ms', unit: 'ms' },
  { path: 'history.export_rows_per_s', unit: '/s', goal: { op: '>=', limit: 100_000 } },
  { path: 'history.export_rss_growth_mb', unit: 'MB', goal: { op: '<=', limit: 50 } },
  // Issue 45: insights over 90 days of the history answer within a second; a candidate policy replays 100k rows a second.
  { path: 'history.insights_90d_ms.tool', unit: 'ms', goal: { op: '<=', limit: 1000 } },
  { path: 'history.insights_90d_ms.person', unit: 'ms', goal: { op: '<=', limit: 1000 } },
  // Issue 62: every by= from a fresh rollup within 100 ms (p99), with none (built on demand) within a second, and a
  // refresh of the rollup's last 8 days within a second.
  { path: 'history.insights_rollup_ms.fresh', unit: 'ms', goal: { op: '<=', limit: 100 } },
  { path: 'history.insights_rollup_ms.none', unit: 'ms', goal: { op: '<=', limit: 1000 } },
  { path: 'history.refresh_8d_ms', unit: 'ms', goal: { op: '<=', limit: 1000 } },
  { path: 'history.simulate_rows_per_s', unit: '/s', goal: { op: '>=', limit: 100_000 } },
  { path: 'history.restart_1m.ready_s', unit: 's', goal: { op: '<=', limit: 2 } },
  { path: 'history.process_100k.decision_to_resume_ms.p99', unit: 'ms', goal: { op: '<=', limit: 10 } },
];

/** Two replicas on one PostgreSQL database (postgres mode only). */
export const REPLICAS: GoalSpec[] = [
  { path: 'replicas_2.create_rps', unit: '/s', goal: { op: '>=', floorTimes: 0.3 }, floor: 'floor.http_rps' },
  {
    path: 'replicas_2.decision_to_resume_cross_ms.p50',
    unit: 'ms',
    goal: { op: '<=', floorPlus: 1 },
    floor: 'floor.durable_decision_to_resume_ms.p50',
  },
  {
    path: 'replicas_2.decision_to_resume_cross_ms.p99',
    unit: 'ms',
    goal: { op: '<=', limit: 10 },
    floor: 'floor.durable_decision_to_resume_ms.p99',
  },
];

/** The durable decision floor (node:http, one synced UPDATE, a parked long-poll answered): every wake-up is judged against it. */
export const DURABLE_DECISION_P50 = 'floor.durable_decision_to_resume_ms.p50';
export const DURABLE_DECISION_P99 = 'floor.durable_decision_to_resume_ms.p99';

/**
 * Issue 47, in process on SQLite (`--baseline REV`): the gateway's CPU per create and per decision against the
 * baseline revision's, interleaved; the decision may cost the verdict's signature on top of 15 %.
 */
export const MICRO: GoalSpec[] = [
  { path: 'verdict_sign_cpu_ms', unit: 'ms', goal: { op: '<=', limit: 0.15 } },
  { path: 'micro.create_cpu_vs_baseline', unit: '×', goal: { op: '<=', limit: 1.15 } },
  {
    path: 'micro.decision_cpu_vs_baseline',
    unit: '×',
    goal: { op: '<=', floorTimes: 1 },
    floor: 'micro.decision_cpu_vs_baseline_limit',
    floorIn: 'mode',
  },
  { path: 'micro.create_cpu_ms', unit: 'ms' },
  { path: 'micro.baseline_create_cpu_ms', unit: 'ms' },
  { path: 'micro.decision_cpu_ms', unit: 'ms' },
  { path: 'micro.baseline_decision_cpu_ms', unit: 'ms' },
];

export const FLOOR: GoalSpec[] = [
  { path: 'floor.http_rtt_ms.p50', unit: 'ms' },
  { path: 'floor.http_rtt_ms.p99', unit: 'ms' },
  { path: 'floor.http_rps', unit: '/s' },
  { path: 'floor.durable_create_rps', unit: '/s' },
  { path: DURABLE_DECISION_P50, unit: 'ms' },
  { path: DURABLE_DECISION_P99, unit: 'ms' },
  { path: 'floor.waiters_10k.rss_mb', unit: 'MB' },
];
