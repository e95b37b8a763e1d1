/**
 * @module cli/agent-hook
 * `tollgate hook <agent>`: a coding agent's pre-tool command hook (Codex, Gemini CLI, Qwen Code, OpenCode, Cline,
 * Copilot CLI, Cursor; `hook claude` is `tollgate claude-hook`). The agent's adapter (`src/agents/<agent>.ts`) reads
 * the hook input on stdin into a tool call; this command adds the git repository and branch of its working
 * directory, asks `POST /v1/hooks/agent` (which files or re-attaches to a request and waits), and prints the
 * adapter's answer to the verdict.
 *
 * It always answers before `--wait` (the agent's default hook timeout less a margin; most agents run the command
 * when a hook times out): with the verdict, or "deferred" — a deny telling the model the request's link and to run
 * the same command again once it is approved, which the gateway then allows at once (`integrations/agent-hook.ts`).
 * A gateway that restarts or cannot be reached is asked again with backoff until then. Anything else that goes wrong
 * — malformed input, no token, a gateway that refuses the call — is the adapter's fail-closed answer: a broken gate
 * never lets a call through.
 *
 * Start-up is most of its cost (a fresh `node` per tool call): it shares `claude-hook`'s bundle and fast path (node
 * built-ins and import-free helpers only, stdio through file descriptors, one bare HTTP/1.1 POST).
 */
import { AGENT_ADAPTERS } from '../agents/index.js';
import { gitPlace } from '../agents/git.js';
import { AgentInputError, type AgentAdapter, type AgentVerdict, type HookAnswer } from '../agents/types.js';
import { Backoff, sleep } from '../client/backoff.js';
import { refusalText, type GatewayConnection } from '../client/connection.js';
import { GateClientError } from '../client/errors.js';
import { postJson } from '../client/http1.js';
import { describeError } from '../api/errors.js';
import { AGENT_HOOK_PATH, type AgentCall, type AgentHookAnswer } from '../integrations/agent-hook-wire.js';
import { AGENT_KINDS } from '../requests/agent-kinds.js';
import { terminalText } from '../utils/terminal-text.js';
import { numberFlag, parseArgs, REQUEST_FLAGS, UsageError } from './args.js';
import { run as runClaudeHook } from './claude-hook.js';
import { HOOK_REFUSE_ENV, hookRoute, processIo, readAll, type HookIo } from './hook-io.js';

/** Kept back from `--wait` for the gateway's answer to arrive and print. */
const REPLY_MARGIN_MS = 500;
/** A "deferred" answer with less time than this left is the answer: asking again could not wait long enough to help. */
const REASK_MIN_MS = 1000;

/** Runs the hook; resolves with the exit code. */
export async function run(argv: string[], io: HookIo = processIo()): Promise<number> {
  const [kind, ...rest] = argv;
  // Claude Code's hook is `claude-hook`; `--wait S` is its `--timeout S`, so every agent's hook takes the same flag.
  if (kind === 'claude')
    return runClaudeHook(
      rest.map((arg) =>
        arg === '--wait' ? '--timeout' : arg.startsWith('--wait=') ? `--timeout=${arg.slice(7)}` : arg,
      ),
      io,
    );
  const adapter = kind ? (AGENT_ADAPTERS as Record<string, AgentAdapter | undefined>)[kind] : undefined;
  if (!adapter)
    throw new UsageError(
      kind
        ? `unknown agent "${kind}": one of ${AGENT_KINDS.join(', ')}`
        : `name the agent: one of ${AGENT_KINDS.join(', ')}`,
    );
  const refuse = (message: string) => print(io, adapter.refuse(terminalText(message, { oneLine: true })));
  const stale = io.env[HOOK_REFUSE_ENV];
  if (stale) return refuse(stale);
  // From here on every failure is the agent's own deny: a crash, or an exit the agent does not read as a block, would
  // let the call run in most agents.
  try {
    return await gate(adapter, rest, io, refuse);
  } catch (error) {
    return refuse(
      error instanceof UsageError
        ? `${error.message} (usage: tollgate hook ${adapter.kind} [--wait S] [--approver ID]… [--channel TYPE[:TARGET]]… [--expires S] [--on-timeout deny|approve] [--agent-id ID])`
        : describeError(error),
    );
  }
}

/** The hook for `adapter`, its flags `argv`; failures the caller turns into the adapter's refusal. */
async function gate(
  adapter: AgentAdapter,
  argv: string[],
  io: HookIo,
  refuse: (message: string) => number,
): Promise<number> {
  const kind = adapter.kind;
  const started = Date.now();
  const args = parseArgs(argv, { values: ['wait', ...REQUEST_FLAGS] });
  if (args.positionals.length)
    throw new UsageError(`unexpected argument "${args.positionals[0]}" (the hook input comes on stdin)`);
  const waitS = numberFlag(args, 'wait') ?? adapter.defaultWaitS;
  if (!(waitS > 0)) throw new UsageError('--wait must be more than 0 seconds');

  let input: Record<string, unknown>;
  try {
    const raw = await readAll(io.stdin);
    if (!raw.trim()) return refuse(`no hook input on stdin: ${kind} sends its hook JSON there`);
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return refuse('invalid hook input: expected a JSON object');
    input = parsed as Record<string, unknown>;
  } catch (error) {
    return refuse(
      error instanceof SyntaxError ? `hook input is not valid JSON: ${error.message}` : describeError(error),
    );
  }
  let call: AgentCall;
  try {
    const tool = adapter.toCall(input, io.env);
    if (adapter.ungated?.includes(tool.tool_name)) {
      return print(
        io,
        adapter.answer(
          {
            outcome: 'allow',
            reason: `tollgate: ${tool.tool_name} only speaks to the user; not gated`,
            updatedArgs: null,
          },
          input,
        ),
      );
    }
    const { repo, branch } = gitPlace(tool.cwd);
    // Within the gateway's bounds (api-schema's agentContextSchema): a field past its bound is unknown, not a refusal.
    call = {
      agent_kind: adapter.kind,
      tool_name: tool.tool_name,
      tool_args: tool.tool_args,
      context: {
        session_id: fit(tool.session_id, 200),
        cwd: fit(tool.cwd, 4000),
        repo: fit(repo, 400),
        branch: fit(branch, 400),
        model: fit(tool.model, 200),
      },
      ...(fit(tool.tool_call_id ?? null, 200) ? { tool_call_id: tool.tool_call_id } : {}),
    };
  } catch (error) {
    if (error instanceof AgentInputError) return refuse(`invalid hook input: ${error.message}`);
    throw error;
  }
  let connection: GatewayConnection;
  let url: URL;
  try {
    ({ connection, url } = hookRoute(io.env, AGENT_HOOK_PATH, args));
  } catch (error) {
    return refuse(describeError(error));
  }
  const answer = await ask(connection, url, JSON.stringify(call), started + waitS * 1000);
  if (typeof answer === 'string') return refuse(answer);
  const verdict: AgentVerdict = { outcome: answer.outcome, reason: answer.reason, updatedArgs: answer.updated_args };
  return print(io, adapter.answer(verdict, input));
}

/**
 * Asks the route until it answers a verdict, or "deferred" at the deadline; a string is why it could not (the
 * gateway refused the call, or could not be reached in time).
 */
async function ask(
  connection: GatewayConnection,
  url: URL,
  body: string,
  deadline: number,
): Promise<AgentHookAnswer | string> {
  const backoff = new Backoff();
  let deferred: AgentHookAnswer | undefined; // printed if the gateway goes away after it
  for (;;) {
    const waitS = Math.max(0, Math.floor((deadline - Date.now() - REPLY_MARGIN_MS) / 100) / 10);
    url.searchParams.set('wait', String(waitS));
    const asked = Date.now();
    try {
      const answer = parseAnswer((await postJson(connection, url, body, Math.max(1, deadline - Date.now()))).body);
      if (!answer) return `the gateway at ${connection.url} answered something that is not a hook answer`;
      // "Deferred" with time left: the gateway is shutting down, or its longest wait is under our --wait.
      if (answer.outcome !== 'deferred' || deadline - Date.now() < REPLY_MARGIN_MS + REASK_MIN_MS) return answer;
      deferred = answer;
      if (Date.now() - asked < waitS * 500)
        await sleep(Math.min(backoff.next(), Math.max(0, deadline - Date.now() - REPLY_MARGIN_MS)));
      else backoff.reset();
    } catch (error) {
      if (!(error instanceof GateClientError)) throw error;
      if (!error.retryable) return refusalText(error, connection.url);
      const delayMs = backoff.next();
      if (Date.now() + delayMs >= deadline - REPLY_MARGIN_MS) return deferred ?? error.message;
      await sleep(delayMs);
    }
  }
}

/** A 2xx body is used only when it is a hook answer: a proxy's "200 OK" page must not pass for a decision. */
function parseAnswer(body: string): AgentHookAnswer | null {
  try {
    const parsed = JSON.parse(body) as Partial<AgentHookAnswer> | null;
    if (
      !parsed ||
      !['allow', 'deny', 'deferred'].includes(parsed.outcome as string) ||
      typeof parsed.reason !== 'string'
    )
      return null;
    const updated = parsed.updated_args;
    return {
      ...(parsed as AgentHookAnswer),
      updated_args: typeof updated === 'object' && updated !== null && !Array.isArray(updated) ? updated : null,
    };
  } catch {
    return null;
  }
}

/** `value` when it is at most `max` characters long, else null. */
function fit(value: string | null, max: number): string | null {
  return value !== null && value.length <= max ? value : null;
}

function print(io: HookIo, answer: HookAnswer): number {
  if (answer.stdout) io.stdout.write(answer.stdout);
  if (answer.stderr) io.stderr.write(answer.stderr);
  return answer.exitCode;
}
