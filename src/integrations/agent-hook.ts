/**
 * @module integrations/agent-hook
 * `POST /v1/hooks/agent`: one tool call of a coding agent (`tollgate hook codex|gemini|qwen|…`), filed or re-attached,
 * waited on for a bounded time, and answered as an {@link AgentHookAnswer} the hook turns into the agent's own answer.
 *
 * Deferred verdicts (an approval that outlives the hook's wait) are `same-call.ts`'s, shared with Claude Code's route.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { agentContextSchema, agentKindSchema, parseInput } from '../api/api-schema.js';
import { toApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import type { Principal } from '../tokens/scopes.js';
import { boundedJsonObject } from '../utils/json-bounds.js';
import type { AgentHookAnswer } from './agent-hook-wire.js';
import { newRequestInput } from './attach.js';
import { requestFields, type GateRequestOptions } from './request-options.js';
import { deferredReason, editedReason, gateSameCall, requestLink, usedReason, type SameCallDeps } from './same-call.js';
import { verdictOf } from './verdict.js';

/** The body of `POST /v1/hooks/agent`, validated. */
export const agentCallSchema = z.strictObject({
  agent_kind: agentKindSchema,
  tool_name: z.string().min(1).max(200),
  tool_args: boundedJsonObject,
  context: agentContextSchema,
  tool_call_id: z.string().min(1).max(200).optional(),
});

/** What the route needs besides the call. */
export interface AgentHookDeps extends SameCallDeps {
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`); else the URL the hook called. */
  publicUrl?: string | null;
}

/** Files or re-attaches to the call in `body`, waits up to `waitMs`, and answers; null when the caller went away. */
export async function answerAgentCall(
  deps: AgentHookDeps,
  principal: Principal,
  body: unknown,
  waitMs: number,
  options: GateRequestOptions,
  res: ServerResponse,
): Promise<AgentHookAnswer | null> {
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
  const outcome = await gateSameCall(
    deps,
    {
      input: { ...input, agentId: input.agentId ?? call.agent_kind },
      agentKind: call.agent_kind,
      cwd: call.context.cwd,
    },
    `token:${principal.name}`,
    waitMs,
    res,
  );
  if (!outcome) return null;
  const { request } = outcome;
  const url = requestLink(deps.publicUrl, res, request);
  switch (outcome.state) {
    case 'pending':
      return { ...answerOf(request, url), outcome: 'deferred', reason: deferredReason(request, url) };
    case 'used':
      return { ...answerOf(request, url), outcome: 'deny', updated_args: null, reason: usedReason(request) };
    case 'edited':
      return { ...answerOf(request, url), outcome: 'deny', updated_args: null, reason: editedReason(request) };
    default:
      return answerOf(request, url);
  }
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
