/**
 * @module cli/policy-simulate
 * `tollgate policy simulate --config candidate.yaml [--since 30d] [--until ISO] [--db …] [--json]`: the candidate
 * policy replayed over the history (docs/insights.md). Like every client command it asks the gateway when
 * `TOLLGATE_URL` is set (`POST /v1/policy/simulate`, an admin `TOLLGATE_TOKEN`); `--db` (or no `TOLLGATE_URL`) reads
 * the database directly. A candidate that does not load exits 2 naming the file's entry, as `tollgate serve` would
 * refuse it, before anything is asked.
 */
import { readFileSync } from 'node:fs';
import { ValidationError } from '../api/errors.js';
import { insightsWindow } from '../insights/query.js';
import { loadCandidate, simulate, type SimulationJson } from '../insights/simulate.js';
import { openStores } from '../stores/open-store.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';
import { flag, parseArgs, UsageError } from './args.js';
import { existingDatabase } from './audit.js';
import { askGateway, sinceFlag, untilFlag } from './policy-suggest.js';
import { remoteFrom } from './remote.js';

/** Runs `tollgate policy simulate`; resolves with the exit code. */
export async function simulateCommand(
  argv: string[],
  out: (text: string) => void,
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const args = parseArgs(argv, { values: ['config', 'since', 'until', 'db'], booleans: ['json'] });
  const path = flag(args, 'config');
  if (!path) throw new UsageError('--config: name the candidate policy file to replay');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--config: cannot read ${path}: ${(error as Error).message}`);
  }
  const now = Date.now();
  const untilText = untilFlag(args);
  const until = untilText === undefined ? undefined : new Date(untilText);
  const sinceText = sinceFlag(args, now);
  let candidate;
  let window;
  try {
    candidate = loadCandidate(text, path);
    window = insightsWindow({ since: sinceText === undefined ? undefined : new Date(sinceText), until }, now);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    err(`tollgate policy simulate: ${terminalText(error.message)}\n`);
    return 2;
  }
  const print = (report: SimulationJson) =>
    out(flag(args, 'json') === 'true' ? `${terminalJson(JSON.stringify(report))}\n` : describe(report));
  if (askGateway(args)) {
    const query = new URLSearchParams({ since: window.since.toISOString(), until: window.until.toISOString() });
    const remote = remoteFrom(process.env, 'an admin token (the one tollgate serve printed)');
    // A replay of a long history takes a while: the gateway's own bounds apply, not the CLI's usual 15 s.
    print(
      await remote.call<SimulationJson>('POST', `/v1/policy/simulate?${query}`, text, {
        type: 'application/yaml',
        timeoutMs: 300_000,
      }),
    );
    return 0;
  }
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  try {
    print(await simulate(candidate, stores.insights.replay(window), window));
    return 0;
  } finally {
    await stores.close();
  }
}

/** The report in words: the denied-but-would-allow list first. */
function describe(r: SimulationJson): string {
  const lines = [`replayed ${r.replayed} requests filed ${r.since} – ${r.until}`];
  if (r.denied_but_would_allow_total) {
    lines.push('', `DENIED by a person, but the candidate allows at once (${r.denied_but_would_allow_total}):`);
    for (const d of r.denied_but_would_allow)
      lines.push(
        `  ${d.created_at} ${d.id} ${d.tool_name} (agent ${d.agent_id ?? '-'}) denied by ${d.responded_by_person}${d.reason ? `: ${d.reason}` : ''} → rule ${d.rule}`,
      );
    if (r.denied_but_would_allow_total > r.denied_but_would_allow.length)
      lines.push(
        `  … and ${r.denied_but_would_allow_total - r.denied_but_would_allow.length} more (--json lists the first ${r.denied_but_would_allow.length})`,
      );
  } else lines.push('', 'no request a person denied would be allowed at once');
  lines.push(
    '',
    `would allow at once ${r.would.auto_allow}, deny at once ${r.would.auto_deny}, ask ${r.would.ask}`,
    `changed: ${r.changed.auto_allow} now allowed at once, ${r.changed.auto_deny} now denied at once, ${r.changed.ask} now asked, ${r.changed.rerouted} asked of other people`,
    `by rule: ${Object.entries(r.by_rule)
      .map(([rule, n]) => `${rule} ${n}`)
      .join(', ')}`,
  );
  return `${terminalText(lines.join('\n'))}\n`;
}
