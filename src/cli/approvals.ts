/**
 * @module cli/approvals
 * Approvals from the terminal, against a running gateway (`TOLLGATE_URL`, `TOLLGATE_TOKEN` — a decide token bound to
 * you, best `--as person:<you>` so every account of yours counts): `tollgate pending` (what waits for me), `show <id>`,
 * `approve <id> [--reason R] [--grant LABEL] [--args JSON]`, `deny <id> [--reason R]`, and `watch` (a live view of
 * `pending`). An id may be shortened to a prefix of a request waiting for you. `--json` prints the API's objects.
 * Everything a request says was written by an agent: it is printed through `terminalText` (`terminalJson` for JSON),
 * so no control character of it reaches the terminal.
 */
import { previewArgs } from '../channel/card.js';
import { summaryLines, summaryView } from '../channel/card-summary.js';
import type { ApiEvent, ApiRequest } from '../requests/serialize.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';
import { flag, parseArgs, UsageError } from './args.js';
import { RemoteError, remoteFrom, type Remote } from './remote.js';

/** Streams and environment of the commands (replaceable in tests). */
export interface ApprovalsIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

const DEFAULT_IO: ApprovalsIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

type Inbox = { as: string; items: ApiRequest[] };

/** Runs one command; a refusal from the gateway is one plain line on stderr and exit 1. */
async function guarded(name: string, io: ApprovalsIo, body: (remote: Remote) => Promise<string>): Promise<number> {
  const remote = remoteFrom(io.env);
  try {
    io.stdout.write(await body(remote));
    return 0;
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    io.stderr.write(`tollgate ${name}: ${terminalText(error.message)}\n`);
    return 1;
  }
}

/** `tollgate pending [--json]`. */
export function pending(argv: string[], io = DEFAULT_IO): Promise<number> {
  const args = parseArgs(argv, { booleans: ['json'] });
  return guarded('pending', io, async (remote) => {
    const inbox = await remote.call<Inbox>('GET', '/v1/inbox');
    return flag(args, 'json') === 'true' ? `${terminalJson(JSON.stringify(inbox))}\n` : inboxText(inbox, Date.now());
  });
}

/** `tollgate show <id> [--json]`. */
export function show(argv: string[], io = DEFAULT_IO): Promise<number> {
  const args = parseArgs(argv, { booleans: ['json'] });
  return guarded('show', io, async (remote) => {
    const id = await resolveId(remote, args.positionals[0], 'show');
    const request = await remote.call<ApiRequest>('GET', `/v1/requests/${id}`);
    const { items: events } = await remote.call<{ items: ApiEvent[] }>('GET', `/v1/requests/${id}/events`);
    if (flag(args, 'json') === 'true') return `${terminalJson(JSON.stringify({ ...request, events }))}\n`;
    return requestText(request, events);
  });
}

/** `tollgate approve <id> [--reason R] [--grant LABEL] [--args JSON] [--json]`. */
export function approve(argv: string[], io = DEFAULT_IO): Promise<number> {
  return decide('approve', argv, io);
}

/** `tollgate deny <id> [--reason R] [--json]`. */
export function deny(argv: string[], io = DEFAULT_IO): Promise<number> {
  return decide('deny', argv, io);
}

async function decide(decision: 'approve' | 'deny', argv: string[], io: ApprovalsIo): Promise<number> {
  // --grant is read by deny too, to say it goes with approve.
  const args = parseArgs(argv, { values: ['reason', 'grant', 'args'], booleans: ['json'] });
  const edited = flag(args, 'args');
  let approvedArgs: unknown;
  if (edited !== undefined) {
    if (decision === 'deny') throw new UsageError('--args goes with approve (the arguments you approve instead)');
    try {
      approvedArgs = JSON.parse(edited);
    } catch {
      throw new UsageError('--args must be a JSON object');
    }
  }
  if (flag(args, 'grant') !== undefined && decision === 'deny') throw new UsageError('--grant goes with approve');
  return guarded(decision, io, async (remote) => {
    const id = await resolveId(remote, args.positionals[0], decision);
    const body = { decision, reason: flag(args, 'reason'), grant: flag(args, 'grant'), approved_args: approvedArgs };
    const after = await remote.call<ApiRequest>('POST', `/v1/requests/${id}/decision`, body);
    if (flag(args, 'json') === 'true') return `${terminalJson(JSON.stringify(after))}\n`;
    const tool = line(after.tool_name);
    if (after.status === 'pending')
      return `approval recorded for ${after.id} (${tool}); it needs ${after.required_approvals} people\n`;
    return `${after.status} ${after.id} (${tool})\n`;
  });
}

/** `tollgate watch [--every S]`: `pending`, redrawn every S seconds (default 2) until Ctrl-C. */
export async function watch(argv: string[], io = DEFAULT_IO, until: AbortSignal = stopOnSigint()): Promise<number> {
  const args = parseArgs(argv, { values: ['every'] });
  const every = Number(flag(args, 'every') ?? 2);
  if (!Number.isFinite(every) || every < 0.2) throw new UsageError('--every must be a number of seconds, at least 0.2');
  const remote = remoteFrom(io.env);
  while (!until.aborted) {
    let screen: string;
    try {
      const inbox = await remote.call<Inbox>('GET', '/v1/inbox');
      screen = `Waiting for ${inbox.as} — ${new Date().toLocaleTimeString()} — Ctrl-C to quit\n\n${inboxText(inbox, Date.now())}`;
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      screen = `tollgate watch: ${terminalText(error.message)}\n(trying again)\n`;
    }
    // Clear and redraw: a terminal view, not a log. These two sequences are the only ones written: the screen's own
    // text has none left (inboxText, terminalText).
    io.stdout.write(`\x1b[H\x1b[2J${screen}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, every * 1000);
      until.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
  return 0;
}

function stopOnSigint(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return controller.signal;
}

/** The short form of an id: its random end. */
function short(id: string): string {
  return id.slice(-8);
}

/** A full id from `given`: a UUID as is, else the one request waiting for you whose id ends (or starts) with it. */
async function resolveId(remote: Remote, given: string | undefined, command: string): Promise<string> {
  if (!given) throw new UsageError(`say which request: tollgate ${command} <id> (tollgate pending lists them)`);
  if (/^[0-9a-f-]{36}$/i.test(given)) return given.toLowerCase();
  const matches = (await remote.call<Inbox>('GET', '/v1/inbox?limit=500')).items.filter(
    (r) => r.id.endsWith(given.toLowerCase()) || r.id.startsWith(given.toLowerCase()),
  );
  if (matches.length === 1) return matches[0]!.id;
  throw new RemoteError(
    matches.length
      ? `${given} matches ${matches.length} requests waiting for you; give more of the id`
      : `no request waiting for you has the id ${given}`,
    null,
  );
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 90 ? `${s}s` : s < 5400 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

/** A request's value inside one line of output: control characters removed, line breaks folded. */
function line(value: string | null | undefined, none = '-'): string {
  return value ? terminalText(value, { oneLine: true }) : none;
}

/** A request's text that may span lines: control characters removed, every further line indented under the label. */
function block(value: string): string {
  return terminalText(value).replace(/\n/g, `\n${' '.repeat(11)}`);
}

/** The inbox as lines: short id (see {@link short}), age, tool, time left, quorum, the prompt or the arguments on one line. */
function inboxText(inbox: Inbox, now: number): string {
  if (!inbox.items.length) return `Nothing waits for ${line(inbox.as)}.\n`;
  const lines = inbox.items.map((r) => {
    const left = Date.parse(r.expires_at) - now;
    const what = (r.prompt === null ? terminalJson(previewArgs(r.tool_args, 200)) : line(r.prompt))
      .replace(/\s+/g, ' ')
      .slice(0, 70);
    const quorum = r.required_approvals > 1 ? `  needs ${r.required_approvals}` : '';
    const risk = r.summary ? `  ${r.summary.risk} risk` : '';
    const does = r.summary ? summaryView(r.summary, { maxItems: 0 }).headline : '';
    return `${short(r.id)}  ${ago(now - Date.parse(r.created_at)).padStart(4)} ago  ${line(r.tool_name)}  (${left > 0 ? `${ago(left)} left` : 'expiring'})${quorum}${risk}\n          ${what}${does ? `\n          ${line(does)}` : ''}`;
  });
  return `${inbox.items.length} waiting for ${line(inbox.as)}:\n${lines.join('\n')}\n`;
}

/** Who asked, naming only what is known: `agent ops-bot for U1, filed by billing-agent`; `tollgate ask` for a shell's question. */
function askedBy(r: ApiRequest): string {
  const agent = r.agent_id === 'tollgate-ask' ? 'tollgate ask' : r.agent_id ? `agent ${line(r.agent_id)}` : null;
  const parts = [
    agent && (r.user_id ? `${agent} for ${line(r.user_id)}` : agent),
    !agent && r.user_id ? `for ${line(r.user_id)}` : null,
    r.filed_by ? `filed by ${line(r.filed_by)}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : '-';
}

/**
 * The call summary for `show`: the card model's lines (risk and reasons, headline, items) and the first diff lines,
 * each through the one terminal-safe text function (paths and commands come from the agent).
 */
function summaryText(r: ApiRequest): string[] {
  if (!r.summary) return [];
  const view = summaryView(r.summary, { maxItems: 20, maxDiffLines: 40, maxLineChars: 200 });
  const diff = [...view.diffLines, ...(view.diffMore ? ['…'] : [])];
  return ['summary', ...[...summaryLines(view), ...diff].map((l) => `  ${terminalText(l)}`)];
}

/** One request in full, for `show`: arguments masked like on the cards, and its events. */
function requestText(r: ApiRequest, events: ApiEvent[]): string {
  const person =
    (r.responded_by_person && r.responded_by_person !== r.responded_by ? ` (${line(r.responded_by_person)})` : '') +
    (r.on_behalf_of ? ` for ${line(r.on_behalf_of)}` : '');
  return [
    `${r.id}  ${r.status}`,
    `tool       ${line(r.tool_name)}`,
    ...(r.prompt ? [`prompt     ${block(r.prompt)}`] : []),
    `asked by   ${askedBy(r)}`,
    `approvers  ${line(r.approvers.join(', '), 'anyone who sees it')}${r.required_approvals > 1 ? ` (${r.required_approvals} people)` : ''}`,
    `expires    ${r.expires_at} (then ${r.on_timeout === 'approve' ? 'approved' : 'denied'})`,
    ...(r.responded_by
      ? [
          `decided    by ${line(r.responded_by)}${person} via ${line(r.responded_via)} at ${r.responded_at}${r.reason ? `: ${block(r.reason)}` : ''}`,
        ]
      : []),
    ...summaryText(r),
    'arguments',
    ...terminalJson(previewArgs(r.tool_args))
      .split('\n')
      .map((l) => `  ${l}`),
    'events',
    ...events.map((e) => `  ${e.at}  ${line(e.type)}${e.actor ? ` by ${line(e.actor)}` : ''}`),
    '',
  ].join('\n');
}
