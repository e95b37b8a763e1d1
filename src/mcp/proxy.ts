/**
 * @module mcp/proxy
 * An MCP gating proxy: serves the upstream MCP server's tools, resources and prompts as its own, and files a tollgate
 * request before forwarding any tool call that is not read-only. The client sees the upstream's lists unchanged
 * (annotations kept, `listChanged` notifications passed on); a gated call waits for a human verdict and then runs
 * with the approver's edited arguments, or answers an `isError` result saying why it did not run.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ProgressNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateRequestInput } from '../api/api-schema.js';

type McpAnnotations = NonNullable<CreateRequestInput['tool_annotations']>;
import type { GateClient } from '../client/gate-client.js';
import { VERSION } from '../version.js';
import { GatedCalls, refusal, type CallExtra } from './gated-call.js';
import { forwardUngated, mirroredCapabilities } from './passthrough.js';
import { describeError } from '../api/errors.js';
import { verdictProblem } from '../client/verdict-check.js';

/** The longest timer Node keeps (about 24.8 days): a forwarded call with a progress token is bounded by its client. */
const NO_DEADLINE_MS = 2 ** 31 - 1;

/** Settings of {@link startMcpProxy}. */
export interface McpProxyOptions {
  /** The server name in `mcp__<name>__<tool>`. */
  name: string;
  /** The transport to the upstream MCP server (`StdioClientTransport` or `StreamableHTTPClientTransport` in the CLI). */
  upstream: Transport;
  /** The transport the MCP client talks to (a `StdioServerTransport` in the CLI). */
  downstream: Transport;
  gate: GateClient;
  /** Tool-name globs always gated, even when annotated read-only. */
  gateGlobs?: string[];
  /** Tool-name globs forwarded without asking (checked after `gateGlobs`). */
  allowGlobs?: string[];
  /** Fields added to every request filed (approvers, timeout, channels, agent id). */
  requestFields?: Partial<CreateRequestInput>;
  /** Part of every idempotency key (default: a random id per process). */
  sessionId?: string;
  /**
   * While a call waits for a human, how often to send `notifications/progress` when the client asked for progress
   * (default 15 s): clients that reset their timeout on progress then wait as long as the human takes.
   */
  progressEveryMs?: number;
  /** Diagnostics (failed receipts); stdout is the protocol, so the CLI writes them to stderr. */
  log?(message: string): void;
  /**
   * Forward an approved call only with a valid signed verdict for it, checked against this JWKS (`--require-verdict`:
   * the gateway's `/.well-known/jwks.json`, or `--jwks-url`).
   */
  requireVerdict?: { jwksUrl: string };
}

/** A running proxy. */
export interface McpProxy {
  /** Closes both sides, after the receipts still in flight were sent. */
  close(): Promise<void>;
}

/** `*` matches any run of characters, `?` one; everything else is literal. */
export function globMatches(glob: string, name: string): boolean {
  const pattern = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(name);
}

/** Whether a call of `tool` needs a human: `--gate` wins, then `--allow`, then the `readOnlyHint` annotation. */
export function needsApproval(
  toolName: string,
  tool: Tool | undefined,
  gateGlobs: string[] = [],
  allowGlobs: string[] = [],
): boolean {
  if (gateGlobs.some((g) => globMatches(g, toolName))) return true;
  if (allowGlobs.some((g) => globMatches(g, toolName))) return false;
  return tool?.annotations?.readOnlyHint !== true;
}

/**
 * The four MCP hints of an upstream tool, booleans only (what `tools/list` said): `{}` for a tool that gave none (the
 * summary then says so), undefined for a tool the upstream did not list.
 */
export function mcpAnnotations(tool: Tool | undefined): McpAnnotations | undefined {
  if (!tool) return undefined;
  const out: McpAnnotations = {};
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (typeof tool.annotations?.[key] === 'boolean') out[key] = tool.annotations[key];
  return out;
}

/** Connects to the upstream, then serves what it offers, gated, on the downstream transport. */
export async function startMcpProxy(options: McpProxyOptions): Promise<McpProxy> {
  const client = new Client({ name: `tollgate-mcp-${options.name}`, version: VERSION });
  let upstreamGone: string | undefined;
  client.onclose = () => {
    upstreamGone ??= `the upstream MCP server "${options.name}" exited; restart the client to reconnect`;
  };
  await client.connect(options.upstream);
  const guard = () => {
    if (upstreamGone) throw new McpError(ErrorCode.InternalError, `tollgate: ${upstreamGone}`);
  };

  const capabilities = mirroredCapabilities(client.getServerCapabilities());
  const instructions = client.getInstructions();
  const server = new Server(
    { name: `tollgate:${options.name}`, version: VERSION },
    { capabilities, ...(instructions ? { instructions } : {}) },
  );
  forwardUngated(server, client, capabilities, guard);

  let tools: Map<string, Tool> | undefined;
  const listAll = async (): Promise<Tool[]> => {
    const all: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      all.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    tools = new Map(all.map((t) => [t.name, t]));
    return all;
  };

  // Upstream progress is relayed under the client's own token, by this handler rather than the SDK's per-call
  // `onprogress`: the SDK forgets a call's progress handler as soon as its response is parsed, so a progress
  // notification that arrived in the same read as the response would be dropped.
  const relaying = new Map<string | number, { extra: CallExtra; sent: Promise<unknown>[] }>();
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    const call = relaying.get(n.params.progressToken);
    call?.sent.push(
      call.extra.sendNotification({ method: 'notifications/progress', params: n.params }).catch(() => undefined),
    );
  });

  const forward = async (
    name: string,
    args: Record<string, unknown>,
    extra: CallExtra,
    progressToken?: string | number,
  ): Promise<CallToolResult> => {
    if (upstreamGone) return refusal(upstreamGone);
    const call = { extra, sent: [] as Promise<unknown>[] };
    if (progressToken !== undefined) relaying.set(progressToken, call);
    try {
      // A client that asked for progress owns the deadline (it cancels through `extra.signal`); the proxy adds none.
      const result = (await client.callTool(
        { name, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) },
        undefined,
        { signal: extra.signal, ...(progressToken === undefined ? {} : { timeout: NO_DEADLINE_MS }) },
      )) as CallToolResult;
      // The result goes out after every relayed progress notification: a client drops progress that follows it.
      await Promise.all(call.sent);
      return result;
    } catch (error) {
      if (upstreamGone || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed))
        return refusal(upstreamGone ?? `the upstream MCP server "${options.name}" closed the connection`);
      // The upstream's own protocol errors (unknown tool, bad params) reach the client as they are.
      if (error instanceof McpError || extra.signal.aborted) throw error;
      return refusal(`the upstream MCP server "${options.name}" could not be reached: ${describeError(error)}`);
    } finally {
      if (progressToken !== undefined && relaying.get(progressToken) === call) relaying.delete(progressToken);
    }
  };

  const trusted = options.requireVerdict;
  const gated = new GatedCalls({
    name: options.name,
    sessionId: options.sessionId ?? randomUUID(),
    gate: options.gate,
    requestFields: options.requestFields,
    progressEveryMs: options.progressEveryMs,
    forward,
    log: options.log,
    // Checked against the call the proxy makes (GatedCalls.call says which), never against names in the answer.
    checkVerdict: trusted ? (verdict, call) => verdictProblem(verdict, call, trusted) : undefined,
  });

  if (capabilities.tools) {
    client.setNotificationHandler(ToolListChangedNotificationSchema, async (n) => {
      tools = undefined;
      await server.notification(n);
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      guard();
      return { tools: await listAll() };
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const { name } = req.params;
      if (upstreamGone) return refusal(upstreamGone);
      if (!tools?.has(name)) await listAll().catch(() => undefined);
      if (needsApproval(name, tools?.get(name), options.gateGlobs, options.allowGlobs))
        return gated.call(req.params, extra, mcpAnnotations(tools?.get(name)));
      return forward(name, req.params.arguments ?? {}, extra, req.params._meta?.progressToken);
    });
  }

  await server.connect(options.downstream);
  return {
    async close() {
      await gated.flush();
      await server.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
