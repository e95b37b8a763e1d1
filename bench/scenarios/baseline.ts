/**
 * @module bench/scenarios/baseline
 * Against another revision, built in the same run (`--baseline REV`, `bench/baseline.ts`), issue 47:
 *
 * - `micro` (SQLite, once per run): the gateway's CPU per create and per decision in process, this revision's and the
 *   baseline's, each in a fresh process of its own (`bench/micro/gateway-cpu.ts`), interleaved ABBA over three pairs
 *   so a drift of the machine falls on both; the ratios of the medians. Both at `synchronous = NORMAL` (the baseline
 *   cannot be told otherwise if it predates `TOLLGATE_SQLITE_SYNC`): the work per call, not the fsync.
 * - `baseline` (every mode): `create_rps` and `decision_to_resume` against the baseline's gateway as shipped (its own
 *   defaults), on the same load, right after this revision's.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase, type BenchContext, type Scenario } from '../context.js';
import { verdictSignCpu } from '../micro/verdict-sign.js';
import { builtEntry, startGateway } from '../processes.js';
import { median, round } from '../stats.js';
import { measureCreates } from './create-rps.js';
import { measureDecisions } from './decision-resume.js';

const MICRO = fileURLToPath(new URL('../micro/gateway-cpu.ts', import.meta.url));

/** One micro run's figures: ms of CPU per call. */
export interface MicroRun {
  create_ms: number;
  decide_ms: number;
  /** Bytes written per call (absent from a micro of before the fifth stage's third session). */
  create_bytes?: number;
  decide_bytes?: number;
  /** Calls of each kind measured. */
  n: number;
}

/** Writes the micro as plain JavaScript into the build of `main` (next to its `src/`); returns its path. */
export async function microIn(main: string): Promise<string> {
  const file = join(dirname(dirname(dirname(main))), 'gateway-cpu.mjs');
  const { transform } = await import('esbuild');
  const { code } = await transform(readFileSync(MICRO, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
  writeFileSync(file, code);
  return file;
}

/** Runs the micro (compiled by {@link microIn}) in a fresh process on a fresh SQLite file; resolves with its figures. */
export async function runMicro(script: string, n: number): Promise<MicroRun> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-bench-micro-'));
  try {
    const child = spawn(process.execPath, [script, String(n), dir], {
      env: { ...process.env, TOLLGATE_SQLITE_SYNC: 'normal' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // 'close', not 'exit': the last line may still be in the pipe when the process has exited.
    const [code] = (await once(child, 'close')) as [number | null];
    const line = out.split('\n').find((l) => l.startsWith('{"create_ms"'));
    if (code !== 0 || !line) throw new Error(`micro ${script} exited ${code}:\n${out.slice(-2000)}`);
    return JSON.parse(line) as MicroRun;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `micro.create_cpu_vs_baseline`, `micro.decision_cpu_vs_baseline` and the figures behind them. */
export const microBaselineScenario: Scenario = {
  name: 'micro',
  modes: ['sqlite'],
  async run(ctx) {
    if (!ctx.baseline || !ctx.build) return skipped(ctx, 'micro');
    const scripts = { current: await microIn(ctx.build), baseline: await microIn(ctx.baseline.main) };
    const n = ctx.quick ? 300 : 2000;
    const runs: Record<'current' | 'baseline', MicroRun[]> = { current: [], baseline: [] };
    // ABBA ABBA …: each revision as often first as second.
    const order = (ctx.quick ? [0] : [0, 1, 2]).flatMap((pair) =>
      pair % 2 === 0 ? (['current', 'baseline'] as const) : (['baseline', 'current'] as const),
    );
    for (const which of order) runs[which].push(await runMicro(scripts[which], n));
    const of = (which: 'current' | 'baseline', key: 'create_ms' | 'decide_ms' | 'create_bytes' | 'decide_bytes') =>
      median(runs[which].map((r) => r[key] ?? NaN));
    const sign =
      typeof ctx.earlier.verdict_sign_cpu_ms === 'number'
        ? ctx.earlier.verdict_sign_cpu_ms
        : (await verdictSignCpu()).median;
    const baseDecision = of('baseline', 'decide_ms');
    const baseCreate = of('baseline', 'create_ms');
    return {
      micro: {
        baseline: ctx.baseline.commit.slice(0, 12),
        sync: 'normal',
        calls: n,
        create_cpu_ms: round(of('current', 'create_ms'), 4),
        baseline_create_cpu_ms: round(of('baseline', 'create_ms'), 4),
        decision_cpu_ms: round(of('current', 'decide_ms'), 4),
        baseline_decision_cpu_ms: round(baseDecision, 4),
        create_cpu_vs_baseline: round(of('current', 'create_ms') / of('baseline', 'create_ms'), 3),
        decision_cpu_vs_baseline: round(of('current', 'decide_ms') / baseDecision, 3),
        // 15 % more than the baseline's, plus what the proof signs (issues 47, 57): a create its receipt, a decision
        // its receipt and its verdict token (the baseline signed neither inside the call).
        create_cpu_vs_baseline_limit: round(1.15 + sign / baseCreate, 3),
        decision_cpu_vs_baseline_limit: round(1.15 + (2 * sign) / baseDecision, 3),
        create_bytes: round(of('current', 'create_bytes'), 0),
        baseline_create_bytes: round(of('baseline', 'create_bytes'), 0),
        decision_bytes: round(of('current', 'decide_bytes'), 0),
        baseline_decision_bytes: round(of('baseline', 'decide_bytes'), 0),
        runs: { current: runs.current.map(roundRun), baseline: runs.baseline.map(roundRun) },
      },
    };
  },
};

const roundRun = (r: MicroRun) => ({ create_ms: round(r.create_ms, 4), decide_ms: round(r.decide_ms, 4) });

function skipped(ctx: BenchContext, name: string): Record<string, unknown> {
  ctx.log(`${name}: no --baseline REV given; skipped`);
  return {};
}

/** `baseline.create_rps`, `baseline.decision_to_resume_ms` (and their CPU): the baseline's gateway as shipped. */
export const baselineScenario: Scenario = {
  name: 'baseline',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    if (!ctx.baseline) return skipped(ctx, 'baseline');
    const entry = builtEntry(ctx.baseline.main);
    const creator = await startGateway({
      dbPath: await freshDatabase(ctx, 'baseline_create'),
      env: ctx.gatewayEnv,
      entry,
    });
    let creates;
    try {
      creates = await measureCreates(ctx, creator);
    } finally {
      await creator.stop();
    }
    const decider = await startGateway({
      dbPath: await freshDatabase(ctx, 'baseline_decision'),
      env: ctx.gatewayEnv,
      entry,
    });
    try {
      return {
        baseline: {
          commit: ctx.baseline.commit.slice(0, 12),
          ...creates,
          ...(await measureDecisions(ctx, decider, ctx.quick ? 200 : 1000)),
        },
      };
    } finally {
      await decider.stop();
    }
  },
};
