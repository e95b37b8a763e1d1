/**
 * @module frameworks/gate
 * What the framework adapters share: which {@link GateClient} to use and one "ask and wait" that turns a tool call
 * into a tollgate request keyed by its call id (so a restarted process re-attaches to the same request).
 */
import { GateClient, verdictProblem } from '../client/index.js';
import type { ApiRequest, CreateRequestInput, VerdictKeys } from '../client/index.js';

/** Where the adapters send their requests and how they file them. */
export interface FrameworkGateOptions {
  /** A ready client; otherwise one is built from `url` + `token` (or TOLLGATE_URL / TOLLGATE_TOKEN). */
  client?: GateClient;
  url?: string;
  token?: string;
  /** How long approvers have, in seconds (the gateway's default when absent). */
  timeoutS?: number;
  /** Who may decide, e.g. `["slack:U0123"]`. */
  approvers?: string[];
  /** Where the card goes (the gateway's default channels when absent). */
  channels?: CreateRequestInput['channels'];
  /** Prefix of the idempotency key (default the adapter's name); use a run or session id to keep runs apart. */
  keyPrefix?: string;
  /** Aborts the wait. */
  signal?: AbortSignal;
  /**
   * Act on an approval only when its signed `verdict_token` verifies, with these keys (the real gateway's
   * `jwksUrl`, or its public `keys`), for the call the framework will make — the tool and arguments the adapter
   * hands back to the framework, under the request it filed. Anything else (another tool, request or argument
   * set, no token) is answered as a refusal, so nothing runs.
   */
  requireVerdict?: VerdictKeys;
}

/** One decided tool call. */
export interface FrameworkVerdict {
  allowed: boolean;
  /** The approver's reason, or a sentence saying why it was not approved (expired, cancelled). */
  reason?: string;
  /** Args edited by the approver, when they did. */
  approvedArgs?: Record<string, unknown>;
  /** The request the adapter filed or re-attached to: the id the gateway answered the filing with. */
  requestId: string;
  request: ApiRequest;
}

/** The call a framework will make once an approval is handed back: the tool and the arguments it runs with. */
export interface FrameworkRun {
  toolName: string;
  args: Record<string, unknown>;
}

/** The client the options name. */
export function gateClientFrom(options: FrameworkGateOptions): GateClient {
  return options.client ?? new GateClient({ url: options.url, token: options.token });
}

/** Files (or re-attaches to, by idempotency key) a request for one tool call and waits for its verdict. */
export async function askForCall(
  client: GateClient,
  options: FrameworkGateOptions,
  defaultPrefix: string,
  call: { toolName: string; args: Record<string, unknown>; callId: string; metadata?: Record<string, unknown> },
): Promise<FrameworkVerdict> {
  // Filed and waited in two steps, so the request id checked against a verdict's `jti` is the one the filing got.
  const filed = await client.request(
    {
      tool_name: call.toolName,
      tool_args: call.args,
      tool_call_id: call.callId,
      idempotency_key: `${options.keyPrefix ?? defaultPrefix}:${call.callId}`,
      timeout_s: options.timeoutS,
      approvers: options.approvers,
      channels: options.channels,
      metadata: call.metadata,
    },
    { signal: options.signal },
  );
  const request = filed.status === 'pending' ? await client.wait(filed.id, { signal: options.signal }) : filed;
  const allowed = request.status === 'approved' || request.allowed === true;
  const reason = request.reason ?? (allowed ? undefined : `not approved (${request.status})`);
  return {
    allowed,
    reason: reason ?? undefined,
    approvedArgs: request.approved_args ?? undefined,
    requestId: filed.id,
    request,
  };
}

/**
 * With `requireVerdict`, checks an approval against `run`, the call the framework will make once the answer is
 * handed back (each adapter says which call that is): an approval whose token does not verify for exactly that
 * tool, arguments and request becomes a refusal saying why. Without `requireVerdict`, or for a refusal, the
 * verdict is returned as it is.
 */
export async function confirmRun(
  options: FrameworkGateOptions,
  verdict: FrameworkVerdict,
  run: FrameworkRun,
): Promise<FrameworkVerdict> {
  if (!options.requireVerdict || !verdict.allowed) return verdict;
  const problem = await verdictProblem(
    verdict.request,
    { requestId: verdict.requestId, toolName: run.toolName, args: run.args },
    options.requireVerdict,
  );
  if (!problem) return verdict;
  return {
    ...verdict,
    allowed: false,
    approvedArgs: undefined,
    reason: `no valid verdict for request ${verdict.requestId}: ${problem}`,
  };
}

/** Parses a JSON object argument string; anything else becomes `{ input: <value> }` so it still fits `tool_args`. */
export function argsObject(value: unknown): Record<string, unknown> {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { input: value };
    }
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  return parsed === undefined ? {} : { input: parsed };
}
