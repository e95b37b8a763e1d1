/**
 * @module integrations/attach
 * Server-side "file or re-attach" for the hook routes. A runtime whose hook gave up waiting asks again; that second
 * ask must land on the first request, not file a duplicate card, and must get the verdict that arrived meanwhile.
 *
 * The rules, in order:
 * 1. An idempotency key (Claude Code's `tool_use_id`, a PulseBot `tool_call_id`) that was seen before → that request.
 * 2. The newest request from the same agent, session, tool and arguments (`args_sha256`) that is still `pending`
 *    → that request (the runtime retried the call under a new id).
 * 3. With `lateWindowMs`: that newest match, when it was decided within the window and the runtime has not
 *    reported running it (no `post_call`, `executed` or `execution_failed` event) → that request, so a verdict that came after the hook answered
 *    "still pending" is delivered on the retry. Expired requests are not re-delivered: the retry asks again.
 * 4. Otherwise a new request.
 */
import { createRequestSchema, parseInput, type CreateRequestInput } from '../api/api-schema.js';
import type { Gateway, NewRequestInput } from '../gateway/gateway.js';
import { argsSha256 } from '../requests/args-hash.js';
import { fromApiInput } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { SharedMarks } from '../contracts/shared-marks.js';

/** How far back rule 2/3 look (newest requests of the agent and tool). */
const MATCH_SCAN_LIMIT = 50;

/** Options of {@link fileOrAttach}. */
export interface AttachOptions {
  /** Rule 3's window in ms; 0 or absent turns it off. */
  lateWindowMs?: number;
  /** Marks shared by every replica (PostgreSQL): the same call asked on two replicas at once is filed once. */
  shared?: SharedMarks;
}

/** How long one replica may hold a call's lease; a replica that dies holding it delays the others this long at most. */
const CALL_LEASE_MS = 10_000;

/** Validates an API-shaped body and turns it into the gateway's input. Throws `ValidationError` naming the field. */
export function newRequestInput(body: CreateRequestInput): NewRequestInput {
  return fromApiInput(parseInput(createRequestSchema, body, 'body'));
}

/**
 * Calls in flight per "same call" (agent, session, tool, arguments). Concurrent re-asks of one call under different ids
 * (50 hook processes at once) used to each find no match and each file a card; now they queue behind one another, so
 * the first files and the rest re-attach to it. Across replicas sharing a database, `shared` marks add a lease per
 * call (see {@link acrossReplicas}).
 */
const inFlight = new Map<string, Promise<unknown>>();

/** Files `input`, or returns the request it re-attaches to (see the module's rules). */
export async function fileOrAttach(
  gateway: Gateway,
  input: NewRequestInput,
  options: AttachOptions = {},
): Promise<ConfirmationRequest> {
  const key = JSON.stringify([
    input.filedBy ?? null,
    input.agentId ?? null,
    input.sessionId ?? null,
    argsSha256(input.toolName, input.toolArgs ?? {}),
  ]);
  return oneCallAtATime(key, options.shared, () => attachOrFile(gateway, input, options));
}

/**
 * Runs `fn` for the call named by `key` once every earlier run for the same key (in this process, and with `shared`
 * on every replica) has finished: the find-then-file (or find-then-use) steps of one call never interleave.
 */
export async function oneCallAtATime<T>(
  key: string,
  shared: SharedMarks | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const before = inFlight.get(key) ?? Promise.resolve();
  const run = () => acrossReplicas(shared, key, fn);
  const mine = before.then(run, run);
  inFlight.set(key, mine);
  try {
    return await mine;
  } finally {
    if (inFlight.get(key) === mine) inFlight.delete(key);
  }
}

/**
 * Runs `fn` holding the call's lease on every replica: a mark added with `ON CONFLICT` semantics, so one replica at a
 * time files or re-attaches and the next finds its request. A lease still held after {@link CALL_LEASE_MS} (its holder
 * died) is taken over, which costs a duplicate card at worst, never a wrong verdict.
 */
async function acrossReplicas<T>(shared: SharedMarks | undefined, key: string, fn: () => Promise<T>): Promise<T> {
  if (!shared) return fn();
  const deadline = Date.now() + CALL_LEASE_MS;
  let held = false;
  while (!(held = await shared.add('call_lock', key, new Date(Date.now() + CALL_LEASE_MS))) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  try {
    return await fn();
  } finally {
    if (held) await shared.take('call_lock', key, new Date()).catch(() => undefined);
  }
}

async function attachOrFile(
  gateway: Gateway,
  input: NewRequestInput,
  options: AttachOptions,
): Promise<ConfirmationRequest> {
  // Rule 1 (and its 409 for reused keys with other arguments) is the gateway's own idempotency. The key is read once:
  // what was found (or that nothing was) goes on to the gateway, which would otherwise read it again.
  const underKey = input.idempotencyKey
    ? await gateway.getByIdempotencyKey(input.idempotencyKey, input.filedBy ?? null)
    : null;
  if (underKey) return (await gateway.request(input, { underKey })).request;
  const match = await newestMatch(gateway, input);
  if (match?.status === 'pending') return match;
  // A late verdict is read again for its verdict token (the match comes without one): a rare path, and a row
  // returned to the runtime should look as every other read shows it.
  if (match && (await isUndeliveredLateVerdict(gateway, match, options.lateWindowMs ?? 0)))
    return (await gateway.get(match.id)) ?? match;
  return (await gateway.request(input, { underKey: null })).request;
}

/**
 * The newest earlier request the same token filed for the same agent, session (or none), tool and arguments, among the agent and tool's
 * newest {@link MATCH_SCAN_LIMIT} requests. With `alsoApprovedArgs`, arguments an approver edited match too (a runtime
 * reports the arguments it ran). The row carries no verdict token (see `Gateway.newestSameCall`).
 */
export async function newestMatch(
  gateway: Gateway,
  input: Pick<NewRequestInput, 'agentId' | 'sessionId' | 'toolName' | 'toolArgs' | 'filedBy'>,
  alsoApprovedArgs = false,
): Promise<ConfirmationRequest | null> {
  if (!input.agentId) return null;
  return gateway.newestSameCall({
    agentId: input.agentId,
    toolName: input.toolName,
    sessionId: input.sessionId ?? null,
    filedBy: input.filedBy ?? null,
    argsSha256: argsSha256(input.toolName, input.toolArgs ?? {}),
    alsoApprovedArgs,
    window: MATCH_SCAN_LIMIT,
  });
}

async function isUndeliveredLateVerdict(
  gateway: Gateway,
  request: ConfirmationRequest,
  windowMs: number,
): Promise<boolean> {
  // An expiry is no one's verdict: a retry after it asks the humans again.
  if (windowMs <= 0 || !request.respondedAt || request.status === 'expired') return false;
  if (gateway.clock.now() - request.respondedAt.getTime() > windowMs) return false;
  const events = await gateway.events(request.id);
  // Any report of the tool having run (PulseBot's post_call, a receipt) means the verdict was used: a retry asks again.
  return !events.some((e) => e.type === 'post_call' || e.type === 'executed' || e.type === 'execution_failed');
}
