/**
 * @module mcp/gated-call
 * One gated `tools/call`: file (or re-attach to) the request, keep the client's timeout alive while a human decides,
 * forward the approved arguments, and report how the call ran (a receipt) so the audit trail reads
 * proposed → approved → executed.
 *
 * Re-attaching: the idempotency key is built from the server name, the tool, the canonical arguments, the proxy's
 * session and a generation that moves on once a verdict has been used. The same call asked again while its request
 * is pending — or after a verdict nobody has used yet — lands on that request; a verdict is used at most once.
 */
import { createHash } from 'node:crypto';
import {
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateRequestInput } from '../api/api-schema.js';
import type { GateClient } from '../client/gate-client.js';
import type { CallToRun } from '../client/verdict-check.js';
import { argsSha256, canonicalJson } from '../requests/args-hash.js';
import type { ApiRequest } from '../requests/serialize.js';
import { describeError } from '../api/errors.js';

/** Longest receipt detail sent (the gateway keeps up to 4000 characters). */
const RECEIPT_DETAIL_MAX = 1000;

/** How the proxy reaches the upstream and the gateway. */
export interface GatedCallsOptions {
  name: string;
  sessionId: string;
  gate: GateClient;
  requestFields?: Partial<CreateRequestInput>;
  progressEveryMs?: number;
  /** Calls the upstream tool; answers `isError` results for a gone upstream, throws the upstream's own errors. */
  forward(
    tool: string,
    args: Record<string, unknown>,
    extra: CallExtra,
    progressToken: string | number | undefined,
  ): Promise<CallToolResult>;
  /** Diagnostics (stderr in the CLI: stdout is the protocol). */
  log?(message: string): void;
  /**
   * `--require-verdict`: checks an approval's signed `verdict_token` for the call about to run (see
   * {@link GatedCalls.call} for what that call is); answers why it fails, or null. An approval that fails is refused
   * and never forwarded: the proxy then trusts the gateway's key, not the answer of whatever sits between it and the
   * gateway.
   */
  checkVerdict?(verdict: ApiRequest, call: CallToRun): Promise<string | null>;
}

/** The parts of the SDK's handler `extra` a call uses. */
export interface CallExtra {
  signal: AbortSignal;
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** The refusal the client sees when a call did not run. */
export function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text: `tollgate: ${text}` }], isError: true };
}

/**
 * Whether a cancellation is the client giving up on its own request timeout rather than someone cancelling the call.
 * The TypeScript SDK sends `notifications/cancelled` in both cases; on a timeout its reason reads
 * `McpError: MCP error -32001: Request timed out` (or "Maximum total timeout exceeded").
 */
export function isClientTimeout(reason: unknown): boolean {
  const text = reason instanceof Error ? `${reason.name} ${reason.message}` : String(reason ?? '');
  return /timed out|timeout|-32001/i.test(text);
}

/** The gated calls of one proxy process. */
export class GatedCalls {
  /** Per call (name, tool, arguments, session): the generation of its current idempotency key. */
  private readonly generations = new Map<string, number>();
  /** Requests whose verdict a call has already used. */
  private readonly used = new Set<string>();
  private readonly receipts = new Set<Promise<void>>();

  constructor(private readonly options: GatedCallsOptions) {}

  /**
   * Handles a `tools/call` that needs a human.
   *
   * The call it makes, and so what a verdict is checked against: the upstream tool `params.name`, known to the
   * gateway as `mcp__<server>__<tool>` (the name this proxy filed, never the answer's `tool_name`), under the
   * request id the gateway answered the filing with (never the verdict's `id`), with the arguments forwarded — the
   * approver's `approved_args` when the answer has them, since those are what the upstream receives, else the
   * client's own. A verdict for another tool, request or argument set is refused and nothing is forwarded.
   */
  async call(
    params: CallToolRequest['params'],
    extra: CallExtra,
    annotations?: CreateRequestInput['tool_annotations'],
  ): Promise<CallToolResult> {
    const { gate, name: server } = this.options;
    const tool = params.name;
    const toolName = `mcp__${server}__${tool}`;
    const args = params.arguments ?? {};
    const progressToken = params._meta?.progressToken;
    const argsHash = createHash('sha256').update(canonicalJson(args)).digest('hex');
    const base = createHash('sha256')
      .update(`${server}\n${tool}\n${argsHash}\n${this.options.sessionId}`)
      .digest('hex');
    let requestId: string | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    const onAbort = () => {
      // A client that timed out may send the same call again: leave the request decidable for that re-send.
      if (!requestId || isClientTimeout(extra.signal.reason)) return;
      void gate
        .cancel(requestId, { reason: 'the MCP client cancelled the call', actor: `mcp:${server}` })
        .catch(() => undefined);
    };
    extra.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const generation = this.generations.get(base) ?? 0;
        // No abort signal here: a request that reached the gateway must be known, so a cancel can follow it.
        const filed = await gate.request(
          {
            ...this.options.requestFields,
            tool_name: toolName,
            tool_args: args,
            // The upstream's own hints from `tools/list`, for the call summary (hints, not proof: the gateway says so).
            ...(annotations ? { tool_annotations: annotations } : {}),
            idempotency_key: `mcp:${base}:${generation}`,
          },
          // The MCP client's trace (MCP carries W3C trace context in `_meta`) is the parent of the gateway's spans.
          { traceparent: typeof params._meta?.traceparent === 'string' ? params._meta.traceparent : undefined },
        );
        if (this.used.has(filed.id)) {
          this.generations.set(base, Math.max(generation + 1, this.generations.get(base) ?? 0));
          continue;
        }
        requestId = filed.id;
        if (extra.signal.aborted) onAbort();
        if (progressToken !== undefined && filed.status === 'pending')
          heartbeat = this.heartbeat(filed.id, progressToken, extra);
        const verdict = filed.status === 'pending' ? await gate.wait(filed.id, { signal: extra.signal }) : filed;
        clearInterval(heartbeat);
        // Two identical calls waiting at once: the first to see the verdict uses it, the other asks again.
        if (this.used.has(filed.id)) continue;
        this.used.add(filed.id);
        this.generations.set(base, Math.max(generation + 1, this.generations.get(base) ?? 0));
        if (!verdict.allowed)
          return refusal(
            `${verdict.status}: ${verdict.reason ?? (verdict.status === 'expired' ? `no approver answered before request ${filed.id} expired` : 'no reason given')}`,
          );
        const runArgs = verdict.approved_args ?? args;
        const problem = await this.options.checkVerdict?.(verdict, { requestId: filed.id, toolName, args: runArgs });
        if (problem) return refusal(`no valid verdict for request ${filed.id}: ${problem}`);
        return await this.runApproved(filed.id, { toolName, tool, args: runArgs }, extra, progressToken);
      }
    } catch (error) {
      if (extra.signal.aborted) return refusal('cancelled: the MCP client cancelled the call');
      if (error instanceof McpError) throw error;
      return refusal(`error: could not get a verdict: ${describeError(error)}`);
    } finally {
      clearInterval(heartbeat);
      extra.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Waits for the receipts still being sent (before the process exits). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.receipts]);
  }

  private heartbeat(requestId: string, progressToken: string | number, extra: CallExtra): NodeJS.Timeout {
    let beats = 0;
    return setInterval(() => {
      const params = {
        progressToken,
        progress: ++beats,
        message: `waiting for a human to approve tollgate request ${requestId}`,
      };
      extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
    }, this.options.progressEveryMs ?? 15_000);
  }

  /**
   * Forwards an approved call and reports how it went; the upstream's answer reaches the client unchanged. The
   * receipt's hash is of the call that ran (the filed name and the forwarded arguments), not of the answer.
   */
  private async runApproved(
    requestId: string,
    run: { toolName: string; tool: string; args: Record<string, unknown> },
    extra: CallExtra,
    progressToken: string | number | undefined,
  ): Promise<CallToolResult> {
    const sha = argsSha256(run.toolName, run.args);
    try {
      const result = await this.options.forward(run.tool, run.args, extra, progressToken);
      this.receipt(
        requestId,
        result.isError
          ? { outcome: 'failed', detail: textOf(result), args_sha256: sha }
          : { outcome: 'succeeded', args_sha256: sha },
      );
      return result;
    } catch (error) {
      this.receipt(requestId, { outcome: 'failed', detail: describeError(error), args_sha256: sha });
      throw error;
    }
  }

  /** Sends a receipt in the background: the client's answer does not wait on the audit trail. */
  private receipt(id: string, input: { outcome: 'succeeded' | 'failed'; detail?: string; args_sha256: string }): void {
    const detail = input.detail?.slice(0, RECEIPT_DETAIL_MAX);
    const sent = this.options.gate
      .receipt(id, { ...input, ...(detail !== undefined ? { detail } : {}) })
      .catch((error: unknown) =>
        this.options.log?.(`tollgate mcp: could not send the receipt of request ${id}: ${describeError(error)}`),
      )
      .finally(() => this.receipts.delete(sent));
    this.receipts.add(sent);
  }
}

/** The text parts of a tool result, for a receipt's detail. */
function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}
