/**
 * @module integrations/agent-hook
 * `POST /v1/hooks/agent`: one tool call of a coding agent (`tollgate hook codex|gemini|qwen|…`), filed or re-attached,
 * waited on for a bounded time, and answered as an {@link AgentHookAnswer} the hook turns into the agent's own answer.
 *
 * **Deferred verdicts.** A hook must answer before the agent kills it (Gemini CLI after 60 s, and most agents run the
 * command when a hook times out), while a human answers in minutes. So a wait that ends while the request is pending
 * answers `deferred` (the agent is told to run the same call again once it is approved) and the request stays
 * pending. The same call — same token, agent (`agent_id`), agent kind, working directory, tool and argument hash,
 * whatever the session: a headless agent starts a new one per run — asked again:
 * - while the request is pending: re-attaches to it and waits again (one card, not two);
 * - once it is approved and not yet used: is allowed at once, and the request is marked used (an `executed` receipt);
 * - once it is denied, expired or cancelled: is refused at once with the reason;
 * for as long as the request lives, or {@link REPLAY_MS} after its verdict, whichever is later. After that, or once
 * the approval was used, the same call asks anew. Every allow the route hands out marks its request used, so one
 * approval runs one call.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { agentContextSchema, agentKindSchema, parseInput } from '../api/api-schema.js';
import type { Gateway } from '../gateway/gateway.js';
import { waitWhileConnected } from '../http/long-poll.js';
import { argsSha256 } from '../requests/args-hash.js';
import { toApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { SharedMarks } from '../contracts/shared-marks.js';
import type { Principal } from '../tokens/scopes.js';
import { boundedJsonObject } from '../utils/json-bounds.js';
import type { AgentHookAnswer } from './agent-hook-wire.js';
import { newRequestInput, oneCallAtATime } from './attach.js';
import { requestFields, type GateRequestOptions } from './request-options.js';
import { verdictOf } from './verdict.js';

/** How long after its verdict a decided request still answers the same call (when it outlives its own expiry). */
export const REPLAY_MS = 10 * 60_000;
/** How far back the same-call lookup looks (the agent and tool's newest requests). */
const MATCH_SCAN_LIMIT = 50;

/** The body of `POST /v1/hooks/agent`, validated. */
export const agentCallSchema = z.strictObject({
  agent_kind: agentKindSchema,
  tool_name: z.string().min(1).max(200),
  tool_args: boundedJsonObject,
  context: agentContextSchema,
  tool_call_id: z.string().min(1).max(200).optional(),
});

/** What the route needs besides the call. */
export interface AgentHookDeps {
  gateway: Gateway;
  /** Marks shared by every replica (PostgreSQL): one call's find-then-use steps never interleave across replicas. */
  shared?: SharedMarks;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`); else the URL the hook called. */
  publicUrl?: string | null;
}

/** Files or re-attaches to the call in `body`, waits up to `waitMs`, and answers; null when the caller went away. */
export async function answerAgentCall(deps: AgentHookDeps, principal: Principal, body: unknown, waitMs: number, options: GateRequestOptions, res: ServerResponse): Promise<AgentHookAnswer | null> {
  const { gateway } = deps;
  const call = parseInput(agentCallSchema, body, 'body');
  const input = {
    ...newRequestInput({
      tool_name: call.tool_name,
      tool_args: call.tool_args,
      agent_kind: call.agent_kind,
      context: call.context,
      ...(call.context.session_id ? { session_id: call.context.session_id } : {}),
      ...(call.tool_call_id ? { tool_call_id: call.tool_call_id } : {}),
      metadata: { source: call.agent_kind },
      ...requestFields(options, call.agent_kind),
    }),
    filedBy: principal.name,
  };
  const agentId = input.agentId ?? call.agent_kind;
  const hash = argsSha256(input.toolName, input.toolArgs ?? {});
  const key = JSON.stringify(['agent', principal.name, agentId, call.agent_kind, call.context.cwd, hash]);
  const url = (request: ConfirmationRequest) => `${deps.publicUrl ?? originOf(res)}/ui/requests/${request.id}`;
  const actor = `token:${principal.name}`;

  const first = await oneCallAtATime(key, deps.shared, async (): Promise<ConfirmationRequest | AgentHookAnswer> => {
    const match = await gateway.newestSameCall({
      agentId,
      toolName: input.toolName,
      sessionId: null,
      argsSha256: hash,
      workspace: { agentKind: call.agent_kind, cwd: call.context.cwd, filedBy: principal.name },
      window: MATCH_SCAN_LIMIT,
    });
    if (match?.status === 'pending') return match;
    if (match && replayable(match, gateway.clock.now())) {
      if (match.allowed !== true) return answerOf(match, url(match));
      if (!(await used(gateway, match))) return handOut(gateway, match, actor, call.agent_kind, url(match));
    }
    return (await gateway.request(input, { underKey: null })).request;
  });
  if (!('id' in first)) return first;

  const final = await waitWhileConnected(gateway, first, waitMs, res);
  if (res.destroyed) return null;
  if (final.status === 'pending') return deferred(final, url(final));
  if (final.allowed !== true) return answerOf(final, url(final));
  // Two hooks waiting on one request both see the approval: the first takes it, the other is told to ask again.
  return oneCallAtATime(key, deps.shared, async () =>
    (await used(gateway, final))
      ? { ...answerOf(final, url(final)), outcome: 'deny' as const, updated_args: null, reason: `This approval (tollgate request ${final.id}) was used by the same call already; run the command again to ask anew.` }
      : handOut(gateway, final, actor, call.agent_kind, url(final)),
  );
}

/** Whether a decided request still answers its call: while it lives, or {@link REPLAY_MS} after its verdict. */
function replayable(request: ConfirmationRequest, now: number): boolean {
  const decidedAt = request.respondedAt?.getTime() ?? request.expiresAt.getTime();
  return now < Math.max(request.expiresAt.getTime(), decidedAt + REPLAY_MS);
}

/** Whether an allowed request was used: a receipt (`executed`, `execution_failed`) or PulseBot's `post_call` exists. */
async function used(gateway: Gateway, request: ConfirmationRequest): Promise<boolean> {
  return (await gateway.events(request.id)).some((e) => e.type === 'executed' || e.type === 'execution_failed' || e.type === 'post_call');
}

/** Marks an allowed request used (its `executed` receipt: the hook cannot see the outcome, only that it let the call run) and allows. */
async function handOut(gateway: Gateway, request: ConfirmationRequest, actor: string, agentKind: string, url: string): Promise<AgentHookAnswer> {
  const ran = request.approvedArgs ? argsSha256(request.toolName, request.approvedArgs) : request.argsSha256;
  await gateway.recordReceipt(request.id, { outcome: 'succeeded', detail: `allowed to run by tollgate hook ${agentKind}`, argsSha256: ran, actor });
  return answerOf(request, url);
}

function answerOf(request: ConfirmationRequest, url: string): AgentHookAnswer {
  const verdict = verdictOf(toApiRequest(request));
  return {
    request_id: request.id,
    status: request.status,
    outcome: verdict.outcome === 'allow' ? 'allow' : 'deny',
    reason: verdict.reason,
    updated_args: verdict.outcome === 'allow' ? verdict.updatedArgs : null,
    url,
  };
}

function deferred(request: ConfirmationRequest, url: string): AgentHookAnswer {
  return {
    ...answerOf(request, url),
    outcome: 'deferred',
    reason:
      `Waiting for approval: ${url} — run the same command again once it is approved (tollgate request ${request.id}; ` +
      `it expires at ${request.expiresAt.toISOString()}). Do not work around it.`,
  };
}

/** The URL the hook called, for links when no public URL is configured. */
function originOf(res: ServerResponse): string {
  const host = res.req?.headers.host;
  return host ? `http://${host}` : '';
}
