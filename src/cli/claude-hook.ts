/**
 * @module cli/claude-hook
 * `tollgate claude-hook`: a Claude Code PreToolUse or PermissionRequest command hook. Reads the hook input on stdin,
 * files (or re-attaches to) a request keyed by the tool call's `tool_use_id`, waits for the verdict, and prints the
 * event's `hookSpecificOutput`. On PostToolUse / PostToolUseFailure it sends the gated request's receipt instead. It always answers before `--timeout` (default 540 s, under Claude Code's 10-minute hook
 * limit): with the verdict, or with a `deny` saying the request is still pending — the same call asked again
 * re-attaches and gets the late verdict at once (and a retry under a new `tool_use_id` re-attaches while pending).
 *
 * Exit codes: 0 with a decision on stdout (nothing for a receipt); 1 when a receipt could not be sent (non-blocking:
 * the tool already ran); 2 (Claude Code's "block the call" code, stderr goes to the model) for
 * malformed input, bad configuration, or a gateway that refuses the call. Failing closed: a broken gate never lets a
 * call through.
 */
import { GateClient } from '../client/gate-client.js';
import { GateClientError } from '../client/errors.js';
import { ValidationError, describeError } from '../errors.js';
import { CLAUDE_HOOK_DEFAULT_WAIT_S, claudeCodeRequest, claudeHookDeny, claudeHookOutput, decisionEventOf, fileOrAttachClaudeRequest, parseClaudeHookInput, type ClaudeHookInput } from '../integrations/claude-code.js';
import { claudeReceipt, findClaudeRequest, isPostToolEvent } from '../integrations/claude-code-receipt.js';
import { requestOptionsFromFlags } from './request-flags.js';
import { numberFlag, parseArgs, UsageError } from './args.js';

/** Largest hook input read from stdin. */
const MAX_INPUT_BYTES = 1024 * 1024;
/** Exit code that makes Claude Code block the call and show stderr to the model. */
const BLOCK = 2;

/** The process streams the command uses (replaceable in tests). */
export interface HookIo {
  stdin: AsyncIterable<Buffer | string>;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** Runs the hook; resolves with the exit code. */
export async function run(argv: string[], io: HookIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const started = Date.now();
  const args = parseArgs(argv);
  if (args.positionals.length) throw new UsageError(`unexpected argument "${args.positionals[0]}" (the hook input comes on stdin)`);
  const timeoutS = numberFlag(args, 'timeout') ?? CLAUDE_HOOK_DEFAULT_WAIT_S;
  if (timeoutS <= 0) throw new UsageError('--timeout must be more than 0 seconds');
  const options = requestOptionsFromFlags(args);
  const fail = (message: string) => {
    io.stderr.write(`tollgate claude-hook: ${message}\n`);
    return BLOCK;
  };

  let raw: string;
  try {
    raw = await readAll(io.stdin);
  } catch (error) {
    return fail(describeError(error));
  }
  if (!raw.trim()) return fail('no hook input on stdin: Claude Code sends the PreToolUse JSON there');
  let input;
  try {
    input = parseClaudeHookInput(JSON.parse(raw));
  } catch (error) {
    if (error instanceof SyntaxError) return fail(`hook input is not valid JSON: ${error.message}`);
    if (error instanceof ValidationError) return fail(`invalid hook input: ${error.message}`);
    throw error;
  }

  let client: GateClient;
  try {
    client = new GateClient({ env: io.env });
  } catch (error) {
    return fail(describeError(error));
  }
  if (isPostToolEvent(input)) return sendReceipt(client, input, options.agentId, io);
  const event = decisionEventOf(input);
  // Everything — filing, reconnecting, waiting — fits inside the timeout, so the host never kills us mid-answer.
  const deadline = started + timeoutS * 1000;
  try {
    const request = await fileOrAttachClaudeRequest(client, claudeCodeRequest(input, options), { retryForMs: Math.max(0, deadline - Date.now()) });
    const final = await client.wait(request.id, { timeoutMs: Math.max(0, deadline - Date.now()) });
    io.stdout.write(`${JSON.stringify(claudeHookOutput(final, event))}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof GateClientError)) throw error;
    if (error.status === 409) {
      io.stdout.write(`${JSON.stringify(claudeHookDeny(`tollgate refused this call: ${error.message}`, event))}\n`);
      return 0;
    }
    return fail(`${error.status ? `gateway answered ${error.status}: ` : ''}${error.message}`);
  }
}

/** PostToolUse / PostToolUseFailure: reports how the gated call ran; a call tollgate never gated is left alone. */
async function sendReceipt(client: GateClient, input: ClaudeHookInput, agentId: string | undefined, io: HookIo): Promise<number> {
  try {
    const request = await findClaudeRequest(client, input, agentId);
    if (request) await client.receipt(request.id, claudeReceipt(input));
    return 0;
  } catch (error) {
    if (!(error instanceof GateClientError)) throw error;
    io.stderr.write(`tollgate claude-hook: could not record how ${input.tool_name} ran: ${error.message}\n`);
    return 1;
  }
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`hook input is larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
