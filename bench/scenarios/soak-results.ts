/**
 * @module bench/scenarios/soak-results
 * The soak's figures in bench/results.json: a soak run merges its own into the file, and a full run that did not soak
 * keeps the last soak's, so each survives the other.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BenchMode } from '../context.js';
import { buildResults, type GoalRow, type RunInfo } from '../report.js';

/** A goal row of the soak's (`soak.…`, under any mode's root). */
const isSoakRow = (row: GoalRow) => /(^|\.)soak\./.test(row.figure);

/**
 * Merges a soak's figures into the results file `file` (bench/results.json): `soak` under each mode's root, its goal
 * rows in place of any earlier soak rows, and its conditions under `conditions.soak`; the other figures stay as the
 * last full run wrote them. Returns the soak's own rows and conditions (to print).
 */
export function mergeSoak(
  file: string,
  figures: Record<BenchMode, Record<string, unknown>>,
  info: RunInfo,
): Record<string, unknown> {
  const results = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { table: [], conditions: {} }) as Record<
    string,
    unknown
  > & { table: GoalRow[]; conditions: Record<string, unknown> };
  const built = buildResults(figures, info);
  for (const mode of ['sqlite', 'bullmq', 'postgres'] as const) {
    const soak = figures[mode].soak;
    if (!soak) continue;
    if (mode === 'sqlite') results.soak = soak;
    else results[mode] = { ...(results[mode] as object | undefined), soak };
  }
  results.table = [...results.table.filter((row) => !isSoakRow(row)), ...(built.table as GoalRow[]).filter(isSoakRow)];
  results.conditions = { ...results.conditions, soak: built.conditions };
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return { table: (built.table as GoalRow[]).filter(isSoakRow), conditions: built.conditions };
}

/** Keeps the soak of the results file `file` in `results` (a full run that did not soak), so one run's soak survives the next. */
export function keepSoak(
  file: string,
  results: Record<string, unknown> & { table: GoalRow[]; conditions: Record<string, unknown> },
): void {
  if (!existsSync(file) || results.table.some(isSoakRow)) return;
  const previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
    table?: GoalRow[];
    conditions?: Record<string, unknown>;
  };
  if (!previous.soak) return;
  results.soak = previous.soak;
  results.table.push(...(previous.table ?? []).filter(isSoakRow));
  results.conditions.soak = previous.conditions?.soak;
}
