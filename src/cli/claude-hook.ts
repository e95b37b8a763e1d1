/**
 * @module cli/claude-hook
 * `tollgate claude-hook`: a Claude Code PreToolUse or PermissionRequest command hook. Forwards the hook input on stdin
 * to the gateway's `POST /v1/hooks/claude-code` — the route Claude Code's HTTP hooks call — which validates it, files
 * (or re-attaches to) a request keyed by the tool call's `tool_use_id`, waits for the verdict and answers the event's
 * `hookSpecificOutput`; the command prints that answer. On PostToolUse / PostToolUseFailure the route records the
 * gated request's receipt instead. It always answers before `--timeout` (default 540 s, under Claude Code's 10-minute
 * hook limit): with the verdict, or with a `deny` saying the request is still pending — the same call asked again
 * re-attaches and gets the late verdict at once (and a retry under a new `tool_use_id` re-attaches while pending).
 * A gateway that restarts or cannot be reached is asked again with backoff until the deadline.
 *
 * Exit codes: 0 with a decision on stdout (nothing for a receipt); 1 when a receipt could not be sent (non-blocking:
 * the tool already ran); 2 (Claude Code's "block the call" code, stderr goes to the model) for
 * malformed input, bad configuration, or a gateway that refuses the call. Failing closed: a broken gate never lets a
 * call through.
 *
 * Start-up is most of this command's cost (a fresh `node` per tool call), so it imports node built-ins and
 * import-free helpers only, reads and writes its standard streams through their file descriptors (`sync-stdio`), and
 * ships as one bundled file (`scripts/build-hook.ts`). zod and the schemas load only when something failed, to name
 * a bad field or flag even when the gateway cannot be reached — with the gateway's own validators, so the words are
 * the same either way.
 */
import { Backoff, sleep } from '../client/backoff.js';
import { refusalText, type GatewayConnection } from '../client/connection.js';
import { GateClientError } from '../client/errors.js';
import { postJson } from '../client/http1.js';
import { gitPlace } from '../agents/git.js';
import { describeError } from '../api/errors.js';
import {
  CLAUDE_HOOK_DEFAULT_WAIT_S,
  CLAUDE_HOOK_HEADERS,
  isPostToolEvent,
} from '../integrations/claude-code-events.js';
import { terminalText } from '../utils/terminal-text.js';
import { numberFlag, parseArgs, REQUEST_FLAGS, UsageError, type ParsedArgs } from './args.js';
import { HOOK_REFUSE_ENV, hookRoute, processIo, readAll, type HookIo } from './hook-io.js';

export type { HookIo } from './hook-io.js';
/** Exit code that makes Claude Code block the call and show stderr to the model. */
const BLOCK = 2;
/** Kept back from `--timeout` for the gateway's answer to arrive and print. */
const REPLY_MARGIN_MS = 500;
/** A "still pending" answer with less time than this left is the answer: asking again could not wait long enough to help. */
const REASK_MIN_MS = 1000;

/** One hook call: what to send where, and by when. */
interface HookCall {
  args: ParsedArgs;
  connection: GatewayConnection;
  url: URL;
  raw: string;
  input: unknown;
  deadline: number;
  io: HookIo;
}

/** Runs the hook; resolves with the exit code. */
export async function run(argv: string[], io: HookIo = processIo()): Promise<number> {
  const stale = io.env[HOOK_REFUSE_ENV];
  if (stale) return blocked(io, stale);
  const started = Date.now();
  // --timeout: the old spelling of --wait.
  const args = parseArgs(argv, { values: ['wait', 'timeout', ...REQUEST_FLAGS] });
  if (args.positionals.length)
    throw new UsageError(`unexpected argument "${args.positionals[0]}" (the hook input comes on stdin)`);
  // `--wait`, as every agent's hook and `init` say it; `--timeout` is its old, deprecated spelling and still works.
  const timeoutS = numberFlag(args, 'wait') ?? numberFlag(args, 'timeout') ?? CLAUDE_HOOK_DEFAULT_WAIT_S;
  if (timeoutS <= 0) throw new UsageError('--wait must be more than 0 seconds');
  const fail = (message: string) => blocked(io, message);

  let raw: string;
  try {
    raw = await readAll(io.stdin);
  } catch (error) {
    return fail(describeError(error));
  }
  if (!raw.trim()) return fail('no hook input on stdin: Claude Code sends the PreToolUse JSON there');
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch (error) {
    return fail(`hook input is not valid JSON: ${(error as Error).message}`);
  }
  let connection: GatewayConnection;
  let url: URL;
  try {
    ({ connection, url } = hookRoute(io.env, '/v1/hooks/claude-code', args));
  } catch (error) {
    return fail(describeError(error));
  }
  // The card says which repository and branch (read from .git here: the gateway may not see this machine's files).
  const cwd = (input as { cwd?: unknown } | null)?.cwd;
  if (
    typeof input === 'object' &&
    input !== null &&
    !Array.isArray(input) &&
    typeof cwd === 'string' &&
    !isPostToolEvent(input)
  ) {
    raw = JSON.stringify({ ...input, tollgate_git: gitPlace(cwd) });
  }
  const call: HookCall = { args, connection, url, raw, input, deadline: started + timeoutS * 1000, io };
  return isPostToolEvent(typeof input === 'object' && input !== null ? input : {}) ? sendReceipt(call) : decide(call);
}

/** PreToolUse / PermissionRequest: asks the route until it answers a verdict, or "still pending" at the deadline. */
async function decide(call: HookCall): Promise<number> {
  const { io, deadline } = call;
  const backoff = new Backoff();
  let pending: string | undefined; // the last "still pending" answer: printed if the gateway goes away after it
  let checked = false;
  for (;;) {
    const waitS = Math.max(0, Math.floor((deadline - Date.now() - REPLY_MARGIN_MS) / 100) / 10);
    call.url.searchParams.set('wait', String(waitS));
    const asked = Date.now();
    try {
      const answer = await postJson(call.connection, call.url, call.raw, Math.max(1, deadline - Date.now()));
      if (!isHookOutput(answer.body))
        return blocked(
          io,
          `the gateway at ${call.connection.url} answered something that is not a hook answer: ${answer.body.slice(0, 200)}`,
        );
      // "Still pending" with time left: the gateway is shutting down, or its longest wait is under our --timeout.
      if (
        answer.headers[CLAUDE_HOOK_HEADERS.status] !== 'pending' ||
        deadline - Date.now() < REPLY_MARGIN_MS + REASK_MIN_MS
      )
        return print(io, answer.body);
      pending = answer.body;
      // An answer long before the wait was up is a gateway stopping: do not spin on it.
      if (Date.now() - asked < waitS * 500)
        await sleep(Math.min(backoff.next(), Math.max(0, deadline - Date.now() - REPLY_MARGIN_MS)));
      else backoff.reset();
    } catch (error) {
      if (!(error instanceof GateClientError)) throw error;
      if (!error.retryable) return blocked(io, (await localProblem(call)) ?? refusalText(error, call.connection.url));
      // Before retrying until the deadline, make sure retrying can help: bad input or flags fail now.
      if (!checked) {
        checked = true;
        const problem = await localProblem(call);
        if (problem) return blocked(io, problem);
      }
      const delayMs = backoff.next();
      if (Date.now() + delayMs >= deadline - REPLY_MARGIN_MS)
        return pending ? print(io, pending) : blocked(io, error.message);
      await sleep(delayMs);
    }
  }
}

/** PostToolUse / PostToolUseFailure: the route records the receipt of the gated call (a call tollgate never gated is left alone). */
async function sendReceipt(call: HookCall): Promise<number> {
  try {
    await postJson(call.connection, call.url, call.raw, Math.max(1, call.deadline - Date.now()));
    return 0;
  } catch (error) {
    if (!(error instanceof GateClientError)) throw error;
    const problem = await localProblem(call);
    if (problem) return blocked(call.io, problem);
    const tool = (call.input as { tool_name?: unknown }).tool_name;
    call.io.stderr.write(
      `tollgate claude-hook: could not record how ${terminalText(String(tool), { oneLine: true })} ran: ${terminalText(error.message)}\n`,
    );
    return 1;
  }
}

/**
 * What is wrong with the flags or the input, checked here with the gateway's own validators (loading zod, so only
 * after a failure). A bad flag throws {@link UsageError}, which `main` prints with the usage line (exit 2).
 */
async function localProblem(call: HookCall): Promise<string | null> {
  const problem = await (await import('./claude-hook-check.js')).hookProblem(call.args, call.input);
  if (problem && 'usage' in problem) throw new UsageError(problem.usage);
  return problem?.input ?? null;
}

/** A 2xx body is printed only when it is a hook answer: a proxy's "200 OK" page must not pass for a decision. */
function isHookOutput(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { hookSpecificOutput?: unknown } | null;
    return typeof parsed?.hookSpecificOutput === 'object' && parsed.hookSpecificOutput !== null;
  } catch {
    return false;
  }
}

function print(io: HookIo, body: string): number {
  io.stdout.write(`${body.trim()}\n`);
  return 0;
}

function blocked(io: HookIo, message: string): number {
  io.stderr.write(`tollgate claude-hook: ${terminalText(message)}\n`);
  return BLOCK;
}
