/**
 * @module bench/flags
 * The command line of `npm run bench` (bench/run.ts): its flags, their defaults, and which scenarios `--only` picks.
 *
 * `--quick` (small counts, to check the harness), `--only a,b` (scenario names, or their first words: `waiters`),
 * `--mode sqlite|bullmq|postgres|all` (or a list), `--profile DIR` (run the gateways under `node --cpu-prof`),
 * `--out FILE` (default bench/results.json, or bench/results.partial.json for a partial run), `--runs N` (run
 * everything N times and keep the median of each figure; the goals are judged on medians of 3), `--source` (run
 * bin/tollgate.js through tsx instead of the plain-JavaScript build users run), `--history` (instead of the usual
 * scenarios, the history ones: the gateway on `--history-rows N` seeded requests, default 10 million, and one process's
 * 100,000 decisions; modes sqlite and postgres unless `--mode` says; written to bench/results.history.json),
 * `--history-seed-dir DIR` (keep the seeded history there and copy it on the next run instead of seeding again:
 * bench/seed-cache.ts), `--soak` (only the soak, `--soak-minutes N` long, default 20; mode sqlite unless `--mode` says;
 * merged into bench/results.json: bench/scenarios/soak.ts), `--baseline REV` (issue 47: build that git revision in a
 * temporary worktree and measure it in the same run: `micro.*_vs_baseline` and `baseline.*`; see bench/baseline.ts).
 */
import { fileURLToPath } from 'node:url';
import type { BenchMode } from './context.js';

/**
 * `--only waiters` runs `waiters_10k` and `waiters_multiplexed_100k`: a name matches itself and the names it begins, up
 * to an underscore; but a scenario's full name matches only that scenario (`--only history` is `history`, not also
 * `history_process`).
 */
export function onlyMatches(asked: string, name: string, names: readonly string[]): boolean {
  return name === asked || (!names.includes(asked) && name.startsWith(`${asked}_`));
}

/** The flags of `npm run bench` (see the module comment) from `argv` (without node and the script); throws on a bad value. */
export function parseFlags(argv: string[]) {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const history = argv.includes('--history');
  const soak = argv.includes('--soak');
  const soakMinutes = Number(value('soak-minutes') ?? 20);
  if (!(soakMinutes > 0)) throw new Error(`--soak-minutes: a positive number, got ${value('soak-minutes')}`);
  const only = value('only')?.split(',') ?? null;
  const modeFlag = value('mode') ?? (history ? 'sqlite,postgres' : soak ? 'sqlite' : 'all');
  const modes =
    modeFlag === 'all' ? (['sqlite', 'bullmq', 'postgres'] as BenchMode[]) : (modeFlag.split(',') as BenchMode[]);
  // A partial run (quick, some scenarios or some modes) must not overwrite the committed figures of a full one.
  const partial = quick || only !== null || modes.length < 3;
  const historyRows = Number(value('history-rows') ?? 10_000_000);
  if (!Number.isInteger(historyRows) || historyRows < 1000)
    throw new Error(`--history-rows: a whole number of at least 1000, got ${value('history-rows')}`);
  const defaultOut = soak
    ? './results.json'
    : history
      ? historyRows === 10_000_000 && !quick
        ? './results.history.json'
        : './results.history.partial.json'
      : partial
        ? './results.partial.json'
        : './results.json';
  return {
    quick,
    history,
    soak,
    soakMinutes,
    historyRows,
    historySeedDir: value('history-seed-dir') ?? null,
    only,
    modes,
    profile: value('profile') ?? null,
    source: argv.includes('--source'),
    // The soak is one long run (its figures compare its own first and last minutes), not a median of three.
    runs: Math.max(1, Number(value('runs') ?? (quick || only || soak ? 1 : 3))),
    baseline: value('baseline') ?? null,
    out: value('out') ?? fileURLToPath(new URL(defaultOut, import.meta.url)),
  };
}

/** What {@link parseFlags} returns. */
export type Flags = ReturnType<typeof parseFlags>;
