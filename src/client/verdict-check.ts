/**
 * @module client/verdict-check
 * The one verdict check of the callers that run what a gateway approved (the MCP proxy's `--require-verdict`, the
 * framework adapters' and the remote backend's `requireVerdict`): the answer's `verdict_token` must verify, with
 * the keys the caller trusts, for the call the caller is about to make. Every part of that call comes from the
 * caller — the tool name it filed, the request id the gateway gave it when it filed (or re-attached), the arguments
 * it will pass — never from the answer, which is exactly what an impostor writes.
 */
import type { ApiRequest } from '../requests/serialize.js';
import { verifyVerdict, type VerifyVerdictOptions } from '../verify/index.js';

/**
 * The keys a caller trusts for verdicts: the gateway's `/.well-known/jwks.json` (pin it to the real gateway: a
 * JWKS fetched from whatever answers in its place proves nothing), or the public keys themselves.
 */
export type VerdictKeys = Pick<VerifyVerdictOptions, 'jwksUrl' | 'keys'>;

/** The call about to run, as the caller will run it. */
export interface CallToRun {
  /** The request the caller filed or re-attached to: the id the gateway answered its `POST /v1/requests` with. */
  requestId: string;
  /** The tool name the caller filed (for MCP, `mcp__<server>__<tool>`). */
  toolName: string;
  /** The arguments that will be passed to the tool: the approver's edited ones when the caller applies them. */
  args: Record<string, unknown>;
}

/**
 * Why the verdict in `answer` does not allow `call` (a sentence starting with the failure's one-word reason), or
 * null when its token verifies for exactly that tool, request and argument set and allows it.
 */
export async function verdictProblem(
  answer: Pick<ApiRequest, 'verdict_token'>,
  call: CallToRun,
  keys: VerdictKeys,
): Promise<string | null> {
  if (!answer.verdict_token) return 'the gateway answered no verdict_token (is it older than signed verdicts?)';
  const result = await verifyVerdict(answer.verdict_token, {
    ...keys,
    toolName: call.toolName,
    args: call.args,
    requestId: call.requestId,
  });
  return result.ok ? null : `${result.reason}: ${result.message}`;
}
