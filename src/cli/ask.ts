/**
 * @module cli/ask
 * `tollgate ask "Deploy to prod?"`: asks a human and waits, for shell scripts and CI pipelines
 * (`tollgate ask "Deploy?" && ./deploy.sh`). Prints the verdict and the approver's reason on stdout.
 *
 * Exit codes: 0 approved; 1 denied, expired, cancelled (or still pending when the wait ran out); 2 usage error;
 * 3 the gateway could not be reached or refused the request. Ctrl-C cancels the request before exiting (130).
 */
import { randomUUID } from 'node:crypto';
import { GateClient } from '../client/gate-client.js';
import { GateClientError } from '../client/errors.js';
import { requestFields } from '../integrations/request-fields.js';
import { requestOptionsFromFlags } from './request-flags.js';
import type { ApiRequest } from '../requests/serialize.js';
import { flag, numberFlag, parseArgs, REQUEST_FLAGS, UsageError } from './args.js';
import { describeError } from '../api/errors.js';
import { terminalJson, terminalText } from '../utils/terminal-text.js';

/** Exit codes of `tollgate ask`. */
export const ASK_EXIT = { approved: 0, notApproved: 1, usage: 2, gatewayError: 3, interrupted: 130 } as const;

/** Extra seconds to wait past the request's expiry for the gateway to record it. */
const EXPIRY_GRACE_S = 30;

/** The process streams the command uses (replaceable in tests). */
export interface AskIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** Runs `tollgate ask`; resolves with the exit code. */
export async function run(
  argv: string[],
  io: AskIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const args = parseArgs(argv, {
    values: ['expires', 'timeout', 'tool', ...REQUEST_FLAGS],
    booleans: ['json', 'quiet'],
  });
  const question = args.positionals.join(' ').trim();
  if (!question) throw new UsageError('the question is missing: tollgate ask "Deploy to prod?"');
  if (question.length > 4000) throw new UsageError('the question is longer than 4000 characters');
  // `--expires S`, as the hooks say it: the question expires S seconds after it is asked, and ask waits until then.
  // `--timeout` is its old, deprecated spelling: everywhere else a wait (`--wait`) is how long a command waits.
  const timeoutS = numberFlag(args, 'expires') ?? numberFlag(args, 'timeout');
  if (timeoutS !== undefined && (!Number.isInteger(timeoutS) || timeoutS < 1))
    throw new UsageError('--expires must be a whole number of seconds, 1 or more');
  const options = await requestOptionsFromFlags(args);
  const quiet = flag(args, 'quiet') === 'true';

  let client: GateClient;
  try {
    client = new GateClient({ env: io.env });
  } catch (error) {
    io.stderr.write(`tollgate ask: ${describeError(error)}\n`);
    return ASK_EXIT.gatewayError;
  }

  const interrupted = new AbortController();
  const onSignal = () => interrupted.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let request: ApiRequest | undefined;
  try {
    request = await client.request(
      {
        tool_name: flag(args, 'tool') ?? 'ask',
        prompt: question,
        // A key makes the POST safe to retry while the gateway restarts: a retry cannot file a second question.
        idempotency_key: `ask:${randomUUID()}`,
        ...(timeoutS !== undefined ? { timeout_s: timeoutS } : {}),
        ...requestFields(options, 'tollgate-ask'),
      },
      { signal: interrupted.signal },
    );
    if (!quiet)
      io.stderr.write(`tollgate ask: waiting for a verdict on request ${request.id} (expires ${request.expires_at})\n`);
    // The gateway expires the request on time; the client only needs a bound in case it is gone for good.
    const waitMs = Date.parse(request.expires_at) - Date.now() + EXPIRY_GRACE_S * 1000;
    const final = await client.wait(request.id, { timeoutMs: Math.max(0, waitMs), signal: interrupted.signal });
    // The reason and the approver's name are others' words: no control character of theirs reaches the terminal.
    io.stdout.write(
      flag(args, 'json') === 'true' ? `${terminalJson(JSON.stringify(final))}\n` : `${terminalText(describe(final))}\n`,
    );
    return final.allowed === true ? ASK_EXIT.approved : ASK_EXIT.notApproved;
  } catch (error) {
    if (interrupted.signal.aborted) {
      if (request)
        await client
          .cancel(request.id, { reason: 'tollgate ask was interrupted', actor: 'tollgate-ask' })
          .catch(() => undefined);
      io.stderr.write('tollgate ask: interrupted; the request was cancelled\n');
      return ASK_EXIT.interrupted;
    }
    if (!(error instanceof GateClientError)) throw error;
    io.stderr.write(
      `tollgate ask: ${error.status ? `gateway answered ${error.status}: ` : ''}${terminalText(error.message)}\n`,
    );
    return ASK_EXIT.gatewayError;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** One line a person reads in a CI log: `approved by web:alice: ship it`. */
function describe(r: ApiRequest): string {
  const reason = r.reason ? `: ${r.reason}` : '';
  switch (r.status) {
    case 'approved':
    case 'denied':
      return `${r.status} by ${r.responded_by ?? 'unknown'}${reason}`;
    case 'expired':
      return `expired: nobody answered in time (${r.allowed ? 'approved' : 'denied'} by default)`;
    case 'cancelled':
      return `cancelled${reason}`;
    case 'pending':
      return `still pending after the wait (request ${r.id}); treating it as not approved`;
  }
}
