/**
 * @module bench/run
 * `npm run bench`: measures tollgate against its goals and against the bare node:http floor, on this machine, in one
 * run. The gateway runs as a child `tollgate serve` on a temp SQLite file; the load comes from a separate
 * load-client process; everything talks over 127.0.0.1. Prints a table and writes bench/results.json.
 *
 * Flags: bench/flags.ts.
 *
 * A full run (not `--quick`, not `--only`) takes the medians of 3 runs unless `--runs` says otherwise: the goals are
 * judged on medians of three (issue 47).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoadClient } from './client-link.js';
import type { BenchContext, BenchMode, Scenario } from './context.js';
import { buildGateway } from './built-gateway.js';
import { onlyMatches, parseFlags, type Flags } from './flags.js';
import { prepareBaseline, type Baseline } from './baseline.js';
import { useBuiltGateway } from './processes.js';
import { machineLoad } from './proc.js';
import { postgresForBench } from './postgres.js';
import { redisForBench } from './redis.js';
import { buildResults, judgeByRuns, printTable, type GoalRow, type RunInfo } from './report.js';
import { medianOfRuns, round } from './stats.js';
import { createRpsScenario } from './scenarios/create-rps.js';
import { decisionResumeScenario } from './scenarios/decision-resume.js';
import { expiryScenario } from './scenarios/expiry.js';
import { floorScenario } from './scenarios/floor.js';
import { baselineScenario, microBaselineScenario } from './scenarios/baseline.js';
import { verdictSignScenario } from './scenarios/verdict-sign.js';
import { auditScenario } from './scenarios/audit.js';
import { durableFloorScenario } from './scenarios/durable-floor.js';
import { restartScenario } from './scenarios/restart.js';
import { slackScenario } from './scenarios/slack.js';
import { teamsScenario } from './scenarios/teams.js';
import { discordScenario } from './scenarios/discord.js';
import { telegramScenario } from './scenarios/telegram.js';
import { emailScenario } from './scenarios/email.js';
import { pushScenario } from './scenarios/push.js';
import { eventsScenario } from './scenarios/events.js';
import { waitersScenario } from './scenarios/waiters.js';
import { waitersMultiplexedScenario } from './scenarios/waiters-multiplexed.js';
import { policyScenario } from './scenarios/policy.js';
import { replicasScenario } from './scenarios/replicas.js';
import { historyScenario } from './scenarios/history.js';
import { historyProcessScenario } from './scenarios/history-process.js';
import { soakScenario } from './scenarios/soak.js';
import { keepSoak, mergeSoak } from './scenarios/soak-results.js';
import { insightsScenario } from './scenarios/insights.js';

/** `--history`: what must stay flat as history grows (issue 35); long, so never part of the usual run. */
const HISTORY_SCENARIOS: Scenario[] = [historyProcessScenario, historyScenario, insightsScenario];

/**
 * In running order: create_rps feeds the expiry scenario's sizing, verdict_sign the micro's decision limit; the
 * baseline's gateway is loaded right after this revision's.
 */
const SCENARIOS: Scenario[] = [
  floorScenario,
  durableFloorScenario,
  verdictSignScenario,
  auditScenario,
  microBaselineScenario,
  decisionResumeScenario,
  createRpsScenario,
  baselineScenario,
  policyScenario,
  slackScenario,
  teamsScenario,
  discordScenario,
  telegramScenario,
  emailScenario,
  pushScenario,
  eventsScenario,
  waitersScenario,
  waitersMultiplexedScenario,
  expiryScenario,
  restartScenario,
  replicasScenario,
];

/** Merges scenario figures, nested objects key by key (the Slack scenario adds `decision_to_resume_ms.slack`). */
function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    const isObject = (v: unknown): v is Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v);
    if (isObject(existing) && isObject(value)) mergeInto(existing, value);
    else target[key] = value;
  }
}

/** One run of every asked-for mode and scenario; returns the figures by mode. */
async function runModes(
  flags: Flags,
  client: LoadClient,
  builds: { build: string | null; baseline: Baseline | null },
  log: (line: string) => void,
  failures: string[],
): Promise<Record<BenchMode, Record<string, unknown>>> {
  const figures: Record<BenchMode, Record<string, unknown>> = { sqlite: {}, bullmq: {}, postgres: {} };
  for (const mode of flags.modes) {
    const tmp = mkdtempSync(join(tmpdir(), `tollgate-bench-${mode}-`));
    const redis = mode !== 'sqlite' ? await redisForBench(log) : null;
    if (mode !== 'sqlite' && !redis) {
      failures.push(`${mode}: no Redis answered on REDIS_URL or 127.0.0.1:6379; skipped`);
      continue;
    }
    const pg = mode === 'postgres' ? await postgresForBench(log) : null;
    if (mode === 'postgres' && !pg) {
      await redis?.close();
      failures.push('postgres: no PostgreSQL answered on TOLLGATE_BENCH_PG or 127.0.0.1:5432; skipped');
      continue;
    }
    const ctx: BenchContext = {
      mode,
      tmp,
      client,
      pg,
      gatewayEnv: redis ? redis.env : {},
      profileDir: flags.profile,
      quick: flags.quick,
      historyRows: flags.historyRows,
      historySeedDir: flags.historySeedDir,
      baseline: builds.baseline,
      build: builds.build,
      earlier: figures[mode],
      log: (line) => log(`${mode}: ${line}`),
    };
    try {
      const scenarios = flags.soak ? [soakScenario(flags.soakMinutes)] : flags.history ? HISTORY_SCENARIOS : SCENARIOS;
      const names = scenarios.map((s) => s.name);
      for (const scenario of scenarios) {
        if (
          !scenario.modes.includes(mode) ||
          (flags.only && !flags.only.some((name) => onlyMatches(name, scenario.name, names)))
        )
          continue;
        // The floor is measured once per run; a postgres-only run measures its own (kept under `postgres.floor`).
        if (scenario === floorScenario && mode === 'postgres' && figures.sqlite.floor) continue;
        const t = Date.now();
        ctx.log(`${scenario.name}…`);
        try {
          mergeInto(figures[mode], await scenario.run(ctx));
          ctx.log(`${scenario.name} done in ${round((Date.now() - t) / 1000, 1)} s`);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failures.push(`${mode} ${scenario.name}: ${message.split('\n').slice(0, 6).join('\n  ')}`);
          ctx.log(`${scenario.name} FAILED: ${message}`);
        }
        if (redis) await redis.clean();
        await pg?.dropAll().catch((error: unknown) => ctx.log(`dropping databases failed: ${String(error)}`));
      }
    } finally {
      await redis?.close();
      await pg?.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return figures;
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  const started = Date.now();
  const loadBefore = machineLoad();
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const failures: string[] = [];
  // The micro against a baseline loads this revision's build too, even when the gateways run from source.
  const built = !flags.source || flags.baseline ? await buildGateway() : null;
  if (!flags.source && built) useBuiltGateway(built);
  const baseline = flags.baseline ? await prepareBaseline(flags.baseline, log) : null;
  const runs: Record<BenchMode, Record<string, unknown>>[] = [];
  try {
    const client = await LoadClient.start();
    try {
      for (let run = 1; run <= flags.runs; run++) {
        if (flags.runs > 1) log(`run ${run} of ${flags.runs}`);
        runs.push(await runModes(flags, client, { build: built, baseline }, log, failures));
      }
    } finally {
      await client.close();
    }
  } finally {
    baseline?.remove();
  }
  const figures = medianOfRuns(runs);
  const info: RunInfo = {
    startedAt: new Date(started).toISOString(),
    durationS: round((Date.now() - started) / 1000, 1),
    loadBefore,
    loadAfter: machineLoad(),
    quick: flags.quick,
    gateway: flags.source
      ? 'bin/tollgate.js through tsx (--source)'
      : 'plain JavaScript (esbuild transpile of src/ + channels/), like the Docker image',
    runs: flags.runs,
    ...(baseline
      ? {
          baseline: {
            rev: baseline.rev,
            commit: baseline.commit,
            node_modules: baseline.modules,
            prepare_s: baseline.prepare_s,
          },
        }
      : {}),
    failures,
  };
  // A --history run shows only its own rows (the usual ones would all read n/a).
  const build = (f: Record<BenchMode, Record<string, unknown>>) => {
    const built = buildResults(f, info);
    if (flags.history) built.table = (built.table as GoalRow[]).filter((row) => row.figure.includes('history.'));
    return built;
  };
  if (flags.soak) {
    printTable(mergeSoak(flags.out, figures, info));
    log(`merged the soak into ${flags.out}`);
    return failures.length ? 1 : 0;
  }
  const results = build(figures);
  if (runs.length > 1) {
    // Judged run by run against each run's own floor; each row also keeps its figure in every run, so the spread
    // behind a median stays visible.
    judgeByRuns(
      results.table as GoalRow[],
      runs.map((run) => build(run).table as GoalRow[]),
    );
  }
  printTable(results);
  keepSoak(flags.out, results as Parameters<typeof keepSoak>[1]);
  writeFileSync(flags.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${flags.out}`);
  for (const failure of failures) log(`problem: ${failure}`);
  return failures.length ? 1 : 0;
}

process.exitCode = await main();
