/**
 * @module integrations/same-call
 * Deferred verdicts: approvals that outlive the hook that asked for them, for every coding agent's hook route
 * (`POST /v1/hooks/agent` and Claude Code's `POST /v1/hooks/claude-code`). A hook must answer before the agent kills
 * it (Gemini CLI after 60 s, and most agents run the command when a hook times out), while a human answers in
 * minutes. So a wait that ends while the request is pending is answered `pending` (the route tells the agent to run
 * the same call again once it is approved) and the request stays pending. The same call — same token, agent
 * (`agent_id`), agent kind, working directory, tool and argument hash, whatever the session: a headless agent starts
 * a new one per run — asked again:
 * - while the request is pending: re-attaches to it and waits again (one card, not two);
 * - once it is approved and not yet used: is allowed at once, and the request is marked used (an `executed` receipt);
 * - once it is denied, expired or cancelled: is refused at once with the reason;
 * for as long as the request lives, or {@link REPLAY_MS} after its verdict, whichever is later. After that, or once
 * the approval was used, the same call asks anew. Every allow handed out marks its request used, so one approval
 * runs one call. An approval with edited arguments the agent cannot run (Codex, Cursor) is not handed out: it is
 * answered `edited` (a deny naming the edited call), with no receipt, since the agent is not told to run anything.
 *
 * A call that names its own id as an idempotency key (Claude Code's `tool_use_id`) finds its request by that key
 * first: the same tool call asked again (after a gateway restart, say) is the same request. The key belongs to the
 * token that filed, and answers only the same call (agent kind, working directory, tool and argument hash): another
 * token's key is never looked at, and the token's own key reused elsewhere is refused, never handed the approval.
 */
import type { ServerResponse } from 'node:http';
import type { Gateway, NewRequestInput } from '../gateway/gateway.js';
import { waitWhileConnected } from '../http/long-poll.js';
import { ConflictError } from '../api/errors.js';
import { runsEditedArgs } from '../requests/agent-kinds.js';
import { argsSha256 } from '../requests/args-hash.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { SharedMarks } from '../contracts/shared-marks.js';
import { requestPageUrl } from '../channel/card.js';
import { oneCallAtATime } from './attach.js';

/** How long after its verdict a decided request still answers the same call (when it outlives its own expiry). */
export const REPLAY_MS = 10 * 60_000;
/** The detail of the receipt a hand-out records (`allowed to run by tollgate hook <agent>`): not a report of how the call ran. */
export const HAND_OUT_DETAIL = 'allowed to run by tollgate hook';
/** How far back the same-call lookup looks (the agent and tool's newest requests). */
const MATCH_SCAN_LIMIT = 50;

/** One coding agent's tool call, as a route files it. */
export interface SameCall {
  /** The request to file when no earlier one answers (its `agentId` is the agent's, its `filedBy` the token's). */
  input: NewRequestInput & { agentId: string; filedBy: string };
  /** `codex`, `claude`, … */
  agentKind: string;
  /** The working directory the agent runs the call in. */
  cwd: string | null;
}

/**
 * What the call gets: `allow` (handed to this caller, and marked used), `deny` (a verdict that refuses it), `pending`
 * (nobody decided in time: deferred), `used` (another call waiting on the same request took the approval first), or
 * `edited` (approved with edited arguments this agent cannot run: refused, not marked used).
 */
export type SameCallOutcome = {
  state: 'allow' | 'deny' | 'pending' | 'used' | 'edited';
  request: ConfirmationRequest;
};

/** What the lookup needs besides the call. */
export interface SameCallDeps {
  gateway: Gateway;
  /** Marks shared by every replica (PostgreSQL): one call's find-then-use steps never interleave across replicas. */
  shared?: SharedMarks;
}

/**
 * Files the call or finds the request that answers it (see the module's rules), waits up to `waitMs` while the caller
 * is connected (counted from the call, the lookup and filing included), and hands out the verdict; null when the
 * caller went away. Throws the gateway's `ConflictError` for an idempotency key reused with other arguments.
 */
export async function gateSameCall(
  deps: SameCallDeps,
  call: SameCall,
  actor: string,
  waitMs: number,
  res: ServerResponse,
): Promise<SameCallOutcome | null> {
  const { gateway } = deps;
  // The hook gives the gateway `waitMs` and keeps half a second back for the answer to reach it: the wait counts from
  // the call's arrival, so the time spent finding or filing the request (seconds, on a loaded database) comes out of
  // it, not out of that half second (the hook would give up first and fail closed, the request filed unseen).
  const arrived = gateway.clock.now();
  const { input } = call;
  const hash = argsSha256(input.toolName, input.toolArgs ?? {});
  const key = JSON.stringify(['agent', input.filedBy, input.agentId, call.agentKind, call.cwd, hash]);
  const handOut = async (request: ConfirmationRequest): Promise<SameCallOutcome> => {
    const ran = request.approvedArgs ? argsSha256(request.toolName, request.approvedArgs) : request.argsSha256;
    // An agent that cannot run the edited arguments is told not to run anything: no receipt says it ran.
    if (ran !== request.argsSha256 && !runsEditedArgs(call.agentKind)) return { state: 'edited', request };
    if (await used(gateway, request)) return { state: 'used', request };
    // The hook cannot see how the call went, only that it let it run: its receipt marks the approval used.
    await gateway.recordReceipt(request.id, {
      outcome: 'succeeded',
      detail: `${HAND_OUT_DETAIL} ${call.agentKind}`,
      argsSha256: ran,
      actor,
    });
    return { state: 'allow', request };
  };
  const decided = async (request: ConfirmationRequest): Promise<SameCallOutcome> =>
    request.allowed === true ? handOut(request) : { state: 'deny', request };

  const first = await oneCallAtATime(key, deps.shared, async (): Promise<ConfirmationRequest | SameCallOutcome> => {
    // The same tool call by its own id: its request, whatever became of it (the gateway checks the arguments match).
    const underKey = input.idempotencyKey
      ? await gateway.getByIdempotencyKey(input.idempotencyKey, input.filedBy)
      : null;
    if (underKey) {
      if (underKey.agentKind !== call.agentKind || (underKey.context?.cwd ?? null) !== call.cwd)
        throw new ConflictError(
          `idempotency_key "${input.idempotencyKey}" was used for request ${underKey.id} by another agent or directory`,
        );
      const request = (await gateway.request(input, { underKey })).request;
      return request.status === 'pending' ? request : decided(request);
    }
    const match = await gateway.newestSameCall({
      agentId: input.agentId,
      toolName: input.toolName,
      sessionId: null,
      argsSha256: hash,
      filedBy: input.filedBy,
      workspace: { agentKind: call.agentKind, cwd: call.cwd },
      window: MATCH_SCAN_LIMIT,
    });
    if (match?.status === 'pending') return match;
    if (match && replayable(match, gateway.clock.now())) {
      if (match.allowed !== true) return { state: 'deny', request: match };
      const outcome = await handOut(match);
      // Used by an earlier call: this one asks anew.
      if (outcome.state !== 'used') return outcome;
    }
    return (await gateway.request(input, { underKey: null })).request;
  });
  if (!('id' in first)) return first;

  const final = await waitWhileConnected(gateway, first, waitMs - (gateway.clock.now() - arrived), res);
  if (res.destroyed) return null;
  if (final.status === 'pending') return { state: 'pending', request: final };
  // Two hooks waiting on one request both see the approval: the first takes it, the other is told to ask again.
  return oneCallAtATime(key, deps.shared, () => decided(final));
}

/** Whether a decided request still answers its call: while it lives, or {@link REPLAY_MS} after its verdict. */
function replayable(request: ConfirmationRequest, now: number): boolean {
  const decidedAt = request.respondedAt?.getTime() ?? request.expiresAt.getTime();
  return now < Math.max(request.expiresAt.getTime(), decidedAt + REPLAY_MS);
}

/** Whether an allowed request was used: a receipt (`executed`, `execution_failed`) or PulseBot's `post_call` exists. */
async function used(gateway: Gateway, request: ConfirmationRequest): Promise<boolean> {
  return (await gateway.events(request.id)).some(
    (e) => e.type === 'executed' || e.type === 'execution_failed' || e.type === 'post_call',
  );
}

/** What a deferred answer tells the model: where a human decides, and to run the same call again once approved. */
export function deferredReason(request: ConfirmationRequest, url: string): string {
  return (
    `Waiting for approval: ${url} — run the same command again once it is approved (tollgate request ${request.id}; ` +
    `it expires at ${request.expiresAt.toISOString()}). Do not work around it.`
  );
}

/** What an agent that cannot run edited arguments is told of an approval with edited ones: the call to make instead. */
export function editedReason(request: ConfirmationRequest): string {
  return (
    `An approver edited the arguments (tollgate request ${request.id}); this agent cannot run edited arguments, so ` +
    `make this call instead: ${JSON.stringify(request.approvedArgs)}`
  );
}

/** What a second call waiting on an approval the first one took is told. */
export function usedReason(request: ConfirmationRequest): string {
  return `This approval (tollgate request ${request.id}) was used by the same call already; run the command again to ask anew.`;
}

/** The inbox page of a request: the public URL when configured, else the address the hook called. */
export function requestLink(
  publicUrl: string | null | undefined,
  res: ServerResponse,
  request: ConfirmationRequest,
): string {
  const host = res.req?.headers.host;
  return requestPageUrl(publicUrl ?? (host ? `http://${host}` : ''), request.id);
}
