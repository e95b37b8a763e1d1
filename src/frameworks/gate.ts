/**
 * @module frameworks/gate
 * What the framework adapters share: which {@link GateClient} to use and one "ask and wait" that turns a tool call
 * into a tollgate request keyed by its call id (so a restarted process re-attaches to the same request).
 */
import { GateClient } from '../client/index.js';
import type { ApiRequest, CreateRequestInput } from '../client/index.js';

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
}

/** One decided tool call. */
export interface FrameworkVerdict {
  allowed: boolean;
  /** The approver's reason, or a sentence saying why it was not approved (expired, cancelled). */
  reason?: string;
  /** Args edited by the approver, when they did. */
  approvedArgs?: Record<string, unknown>;
  request: ApiRequest;
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
  const request = await client.requestAndWait(
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
  const allowed = request.status === 'approved' || request.allowed === true;
  const reason = request.reason ?? (allowed ? undefined : `not approved (${request.status})`);
  return { allowed, reason: reason ?? undefined, approvedArgs: request.approved_args ?? undefined, request };
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
