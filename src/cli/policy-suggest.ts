/**
 * @module cli/policy-suggest
 * `tollgate policy suggest [--since 30d] [--until ISO] [--min 10] [--db …] [--json]`: the rules the history suggests
 * (docs/insights.md). Like every client command it asks the gateway when `TOLLGATE_URL` is set (`GET
 * /v1/insights/suggestions`, a `TOLLGATE_TOKEN` with admin or audit:read); `--db` (or no `TOLLGATE_URL`) reads the
 * database directly, as `tollgate audit` does. Each is printed as YAML ready to
 * paste under `policies:`, with its evidence; nothing is applied. Rows hold what agents wrote, so the text goes
 * through `terminalText` (JSON through `terminalJson`).
 */
import { Insights } from '../insights/service.js';
import type { SuggestionJson } from '../insights/suggestions.js';
import { NO_DIRECTORY } from '../people/no-directory.js';
import { openStores } from '../stores/open-store.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';
import { flag, parseArgs, UsageError, type ParsedArgs } from './args.js';
import { existingDatabase } from './audit.js';
import { remoteFrom } from './remote.js';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a span back from now (`30d`, `12h`, `90m`) or a date / ISO time, as an ISO time. */
export function sinceFlag(args: ParsedArgs, now: number): string | undefined {
  const text = flag(args, 'since');
  if (text === undefined) return undefined;
  const span = /^(\d+)([mhd])$/.exec(text);
  if (span) return new Date(now - Number(span[1]) * UNITS[span[2]!]!).toISOString();
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime()))
    throw new UsageError(`--since: not a span or a date: ${text} (use 30d, 12h, 2026-01-31 or an ISO time)`);
  return at.toISOString();
}

/** `--until`: the window's end (a date or ISO time; default now), as an ISO time. */
export function untilFlag(args: ParsedArgs): string | undefined {
  const text = flag(args, 'until');
  if (text === undefined) return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--until: not a time: ${text}`);
  return at.toISOString();
}

/**
 * Whether a `policy suggest` / `simulate` asks the running gateway: when `TOLLGATE_URL` is set and `--db` is not
 * given. `--db` always reads that database; with neither, `TOLLGATE_DB` or ./data/tollgate.db is read, as before.
 */
export function askGateway(args: ParsedArgs, env: Record<string, string | undefined> = process.env): boolean {
  return flag(args, 'db') === undefined && Boolean(env.TOLLGATE_URL);
}

/** Runs `tollgate policy suggest`; resolves with the exit code. */
export async function suggest(argv: string[], out: (text: string) => void): Promise<number> {
  const args = parseArgs(argv, { values: ['since', 'until', 'min', 'db'], booleans: ['json'] });
  const now = Date.now();
  const query = { since: sinceFlag(args, now), until: untilFlag(args), min: flag(args, 'min') ?? '10' };
  const print = (suggestions: SuggestionJson[]) => {
    if (flag(args, 'json') === 'true') out(`${terminalJson(JSON.stringify(suggestions))}\n`);
    else
      out(
        suggestions.length
          ? suggestions.map(describe).join('\n')
          : `no call was approved ${query.min} times or more without a denial, an edit or an expiry in this window\n`,
      );
  };
  if (askGateway(args)) {
    const search = new URLSearchParams({
      min: query.min,
      ...(query.since ? { since: query.since } : {}),
      ...(query.until ? { until: query.until } : {}),
    });
    const remote = remoteFrom(process.env, 'a token with admin or audit:read');
    print(
      await remote.call<SuggestionJson[]>('GET', `/v1/insights/suggestions?${search}`, undefined, {
        timeoutMs: 120_000,
      }),
    );
    return 0;
  }
  const stores = await openStores(existingDatabase(flag(args, 'db'), process.env.TOLLGATE_DB), {
    env: process.env,
    migrate: false,
  });
  try {
    const insights = new Insights({
      store: stores.insights,
      directory: () => NO_DIRECTORY,
      now: () => now,
      denied: async (toolName, since, until) =>
        (await stores.store.list({ status: 'denied', toolName, since, until, limit: 100 })).items,
      request: (id) => stores.store.get(id),
      policy: () => null,
      grants: null,
      note: () => Promise.resolve(),
    });
    print(await insights.suggestions(query));
    return 0;
  } finally {
    await stores.close();
  }
}

/** One suggestion in words, its rule indented as it goes under `policies:`. */
function describe(s: SuggestionJson): string {
  const denied = s.nearest_denied
    ? `denied nearby (not covered): ${s.nearest_denied.tool_name} ${JSON.stringify(s.nearest_denied.tool_args)} by ${s.nearest_denied.responded_by_person ?? 'nobody'}${s.nearest_denied.reason ? ` ("${s.nearest_denied.reason}")` : ''}`
    : 'no denied call of this tool in the window';
  const lines = [
    `# ${s.id}: ${s.summary}`,
    `# would have approved ${s.would_auto_approve} requests at once, saving ${s.approver_minutes_saved} approver minutes; approved by ${s.approvers.join(', ')}`,
    `# ${denied}`,
    s.rule.replace(/^/gm, '  ').trimEnd(),
  ];
  return `${terminalText(lines.join('\n'))}\n`;
}
