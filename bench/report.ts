/**
 * @module bench/report
 * The goal rows of a run (from bench/goals.ts), the table printed at the end of `npm run bench`, and the shape of
 * bench/results.json.
 */
import { readFileSync } from 'node:fs';
import type { BenchMode } from './context.js';
import {
  DURABLE_DECISION_P50,
  DURABLE_DECISION_P99,
  FLOOR,
  MICRO,
  perMode,
  REPLICAS,
  type Goal,
  type GoalSpec,
} from './goals.js';

/** One row of the table. */
export interface GoalRow {
  figure: string;
  value: number | null;
  unit: string;
  goal: string;
  floor: string;
  /** `pass`, `miss`, or `info` for figures without a goal. */
  verdict: 'pass' | 'miss' | 'info' | 'n/a';
  /** The number the goal sets (relative goals: from the floor beside the figure), null without a goal or floor. */
  limit?: number | null;
  op?: '<=' | '>=';
  /** With `--runs N`: the figure in each run (`value` is their median). */
  runs?: (number | null)[];
  /** With `--runs N` and a goal relative to the floor: the limit each run's own floor set. */
  runLimits?: (number | null)[];
}

/** Conditions of the run, recorded next to the figures. */
export interface RunInfo {
  startedAt: string;
  durationS: number;
  loadBefore: { loadavg1: number; cores: number };
  loadAfter: { loadavg1: number; cores: number };
  quick: boolean;
  /** How the gateway ran. */
  gateway: string;
  /** How many runs the medians are of. */
  runs: number;
  /** The revision measured beside this one (`--baseline`), and how it was installed. */
  baseline?: { rev: string; commit: string; node_modules: string; prepare_s: number };
  failures: string[];
}

/** The limit a goal sets in this run (null when it is relative and the floor was not measured). */
function limitOf(goal: Goal, floor: unknown): number | null {
  if ('limit' in goal) return goal.limit;
  if (typeof floor !== 'number') return null;
  if ('floorTimes' in goal)
    return goal.op === '>=' && floor >= 100
      ? Math.round(goal.floorTimes * floor)
      : Math.round(goal.floorTimes * floor * 100) / 100;
  return Math.round((floor + goal.floorPlus) * 100) / 100;
}

function goalText(goal: Goal, limit: number | null): string {
  const relative =
    'floorTimes' in goal
      ? ` (${Math.round(goal.floorTimes * 1000) / 10} % of floor)`
      : 'floorPlus' in goal
        ? ` (floor + ${goal.floorPlus})`
        : '';
  return `${goal.op} ${limit === null ? '?' : limit.toLocaleString('en-US')}${relative}`;
}

function get(root: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      root,
    );
}

/** Parts of the paths of figures only some runs measure (`--only`), left out of the table when absent. */
const OPTIONAL = [
  'baseline',
  'micro.',
  'verdict_sign',
  'cpu_ms_per_request',
  'slack',
  'teams.',
  'discord.',
  'telegram.',
  'email.',
  'push.',
  'events.',
  'policy',
  'claude',
  'per_waiter',
  'durable_',
  'history.',
  'floor.waiters',
  'waiters_multiplexed',
  'soak.',
  'audit.',
];

function rowsFor(
  root: Record<string, unknown>,
  floorRoot: Record<string, unknown>,
  prefix: string,
  specs: GoalSpec[],
  extraCheck: (path: string) => boolean,
): GoalRow[] {
  return specs.flatMap((spec) => {
    const raw = get(root, spec.path);
    // Optional figures (the chat channels, email, policy) appear only once measured.
    if (raw === undefined && OPTIONAL.some((part) => spec.path.includes(part))) return [];
    const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
    const floorValue = spec.floor ? get(spec.floorIn === 'mode' ? root : floorRoot, spec.floor) : undefined;
    if (spec.needsFloor && floorValue === undefined) return [];
    const limit = spec.goal ? limitOf(spec.goal, floorValue) : null;
    let verdict: GoalRow['verdict'] = 'info';
    if (spec.goal) {
      // No value although the scenario ran (e.g. deciding 10,000 took longer than the long-polls wait): a miss.
      if (value === null || limit === null)
        verdict = get(root, spec.path.split('.')[0]!) === undefined || limit === null ? 'n/a' : 'miss';
      else
        verdict = (spec.goal.op === '<=' ? value <= limit : value >= limit) && extraCheck(spec.path) ? 'pass' : 'miss';
    }
    return [
      {
        figure: `${prefix}${spec.label ?? spec.path}`,
        value,
        unit: spec.unit,
        goal: spec.goal ? goalText(spec.goal, limit) : '',
        floor: typeof floorValue === 'number' ? String(floorValue) : '',
        verdict,
        ...(spec.goal ? { limit, op: spec.goal.op } : {}),
      },
    ];
  });
}

/** Assembles results.json: SQLite figures at the top level, BullMQ ones under `bullmq`, PostgreSQL ones under `postgres`, then the goal rows. */
export function buildResults(
  figures: Record<BenchMode, Record<string, unknown>>,
  info: RunInfo,
): Record<string, unknown> {
  const { floor, ...sqlite } = figures.sqlite as { floor?: Record<string, unknown> } & Record<string, unknown>;
  const floorRoot = { floor };
  // A restart only counts if the overdue rows were expired by the time the gateway was ready; the verdict streams only
  // if every verdict arrived.
  const check = (root: Record<string, unknown>) => (path: string) =>
    (!path.startsWith('restart_100k') || get(root, 'restart_100k.overdue_left') === 0) &&
    (!path.startsWith('waiters_multiplexed') ||
      get(
        root,
        path.includes('.flags.')
          ? 'waiters_multiplexed_100k.flags.not_delivered'
          : 'waiters_multiplexed_100k.not_delivered',
      ) === 0);
  // A mode that measured a floor of its own (postgres's durable floor; the waiters' floor in every mode) is judged
  // against it, and against the run's floors for the rest — but PostgreSQL never against SQLite's durable floor.
  const floorOf = (mode: Record<string, unknown>, run: Record<string, unknown> | undefined = floor) => ({
    floor: { ...run, ...(mode.floor as Record<string, unknown> | undefined) },
  });
  const bare = Object.fromEntries(Object.entries(floor ?? {}).filter(([key]) => !key.startsWith('durable_')));
  const rows = [
    ...rowsFor(floorRoot, floorRoot, '', FLOOR, () => true),
    ...(Object.keys(sqlite).length
      ? rowsFor(sqlite, floorRoot, '', [...MICRO, ...perMode(true, 2)], check(sqlite))
      : []),
    ...(Object.keys(figures.bullmq).length
      ? rowsFor(figures.bullmq, floorOf(figures.bullmq), 'bullmq.', perMode(false, 2), check(figures.bullmq))
      : []),
    ...(Object.keys(figures.postgres).length
      ? rowsFor(
          figures.postgres,
          floorOf(figures.postgres, bare),
          'postgres.',
          [
            { path: 'floor.durable_create_rps', unit: '/s' },
            { path: DURABLE_DECISION_P50, unit: 'ms' },
            { path: DURABLE_DECISION_P99, unit: 'ms' },
            ...perMode(false, 1.5),
            ...REPLICAS,
          ],
          check(figures.postgres),
        )
      : []),
  ];
  return {
    ...(floor ? { floor } : {}),
    ...sqlite,
    ...(Object.keys(figures.bullmq).length ? { bullmq: figures.bullmq } : {}),
    ...(Object.keys(figures.postgres).length ? { postgres: figures.postgres } : {}),
    table: rows,
    conditions: {
      started_at: info.startedAt,
      duration_s: info.durationS,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cores: info.loadBefore.cores,
      loadavg1_before: info.loadBefore.loadavg1,
      loadavg1_after: info.loadAfter.loadavg1,
      quick: info.quick,
      gateway: info.gateway,
      runs: info.runs,
      ...(info.baseline ? { baseline: info.baseline } : {}),
      problems: info.failures,
    },
  };
}

/**
 * Judges the rows of a results table over several runs (`perRun`: each run's own table), as the goals are worded:
 * each run's figure against the limit of that same run (for a relative goal, from that run's floor), the median of
 * those margins deciding. A fixed limit gives the same verdict as the median figure would; a relative one no longer
 * pairs one run's figure with another run's floor. Also keeps each run's figure (and relative limit) on the row.
 */
export function judgeByRuns(rows: GoalRow[], perRun: GoalRow[][]): void {
  for (const row of rows) {
    const own = perRun.map((table) => table.find((r) => r.figure === row.figure));
    row.runs = own.map((r) => r?.value ?? null);
    const margins = own.map(marginOf);
    if (!row.op || margins.some((m) => m === null)) continue;
    const limits = own.map((r) => r?.limit ?? null);
    if (limits.some((l) => l !== row.limit)) {
      row.runLimits = limits;
      row.goal = row.goal.replace(/\)$/, `; each run's: ${limits.map((l) => l?.toLocaleString('en-US')).join(' / ')})`);
    }
    const sorted = (margins as number[]).sort((a, b) => a - b);
    row.verdict = sorted[Math.floor((sorted.length - 1) / 2)]! >= 0 ? 'pass' : 'miss';
  }
}

/** How far a run's figure is inside its limit (negative: outside); a run that missed on a side check is outside. */
function marginOf(row: GoalRow | undefined): number | null {
  if (!row || row.value === null || row.limit == null || !row.op) return null;
  const margin = row.op === '<=' ? row.limit - row.value : row.value - row.limit;
  // e.g. a restart ready in time whose overdue rows were not all expired yet
  return row.verdict === 'miss' && margin >= 0 ? Number.NEGATIVE_INFINITY : margin;
}

/** Prints the table as the goals are worded (issue 47): figure, measured / floor / goal, verdict. */
export function printTable(results: Record<string, unknown>): void {
  const rows = results.table as GoalRow[];
  const header = ['figure', 'measured', 'floor', 'goal', 'verdict'];
  const lines = rows.map((r) => [
    r.figure,
    r.value === null ? '—' : `${r.value.toLocaleString('en-US')} ${r.unit}`,
    r.floor ? `${r.floor} ${r.unit}` : '',
    r.goal ? `${r.goal} ${r.unit}` : '',
    r.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  const out = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)];
  const c = results.conditions as {
    cores: number;
    loadavg1_before: number;
    loadavg1_after: number;
    duration_s: number;
    runs?: number;
  };
  out.push(
    '',
    `${c.cores} cores, load average ${c.loadavg1_before} before / ${c.loadavg1_after} after, ${c.duration_s} s${(c.runs ?? 1) > 1 ? `, medians of ${c.runs} runs` : ''}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Renders the table as Markdown (for docs/performance.md), in the printed table's order. */
export function markdownTable(results: Record<string, unknown>): string {
  const rows = results.table as GoalRow[];
  const lines = ['| figure | measured | floor | goal | |', '|---|---:|---:|---|---|'];
  for (const r of rows) {
    lines.push(
      `| \`${r.figure}\` | ${r.value === null ? '—' : `${r.value.toLocaleString('en-US')} ${r.unit}`} | ${r.floor ? `${r.floor} ${r.unit}` : ''} | ${r.goal ? `${r.goal} ${r.unit}` : ''} | ${r.verdict} |`,
    );
  }
  return lines.join('\n');
}

// `tsx bench/report.ts [results.json]` prints the table of a results file as Markdown.
if (process.argv[1]?.endsWith('report.ts')) {
  const file = process.argv[2] ?? new URL('./results.json', import.meta.url).pathname;
  process.stdout.write(`${markdownTable(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)}\n`);
}
