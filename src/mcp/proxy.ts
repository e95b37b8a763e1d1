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
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateRequestInput } from '../api-schema.js';
import type { GateClient } from '../client/gate-client.js';
import { VERSION } from '../version.js';
import { GatedCalls, refusal, type CallExtra } from './gated-call.js';
import { forwardUngated, mirroredCapabilities } from './passthrough.js';
import { describeError } from '../errors.js';

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
}

/** A running proxy. */
export interface McpProxy {
  /** Closes both sides, after the receipts still in flight were sent. */
  close(): Promise<void>;
}

/** `*` matches any run of characters, `?` one; everything else is literal. */
export function globMatches(glob: string, name: string): boolean {
  const pattern = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(name);
}

/** Whether a call of `tool` needs a human: `--gate` wins, then `--allow`, then the `readOnlyHint` annotation. */
export function needsApproval(toolName: string, tool: Tool | undefined, gateGlobs: string[] = [], allowGlobs: string[] = []): boolean {
  if (gateGlobs.some((g) => globMatches(g, toolName))) return true;
  if (allowGlobs.some((g) => globMatches(g, toolName))) return false;
  return tool?.annotations?.readOnlyHint !== true;
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
  const server = new Server({ name: `tollgate:${options.name}`, version: VERSION }, { capabilities, ...(instructions ? { instructions } : {}) });
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

  const forward = async (name: string, args: Record<string, unknown>, extra: CallExtra, progressToken?: string | number): Promise<CallToolResult> => {
    if (upstreamGone) return refusal(upstreamGone);
    // The upstream's own progress reaches the client under the client's token, and keeps both timeouts alive.
    // The result waits for every progress notification to be sent: a client drops progress that arrives after it.
    const relayed: Promise<unknown>[] = [];
    const onprogress = progressToken === undefined ? undefined : (p: { progress: number; total?: number; message?: string }) => void relayed.push(extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken } }).catch(() => undefined));
    try {
      const result = (await client.callTool({ name, arguments: args }, undefined, { signal: extra.signal, ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}) })) as CallToolResult;
      await Promise.all(relayed);
      return result;
    } catch (error) {
      if (upstreamGone || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) return refusal(upstreamGone ?? `the upstream MCP server "${options.name}" closed the connection`);
      // The upstream's own protocol errors (unknown tool, bad params) reach the client as they are.
      if (error instanceof McpError || extra.signal.aborted) throw error;
      return refusal(`the upstream MCP server "${options.name}" could not be reached: ${describeError(error)}`);
    }
  };

  const gated = new GatedCalls({
    name: options.name,
    sessionId: options.sessionId ?? randomUUID(),
    gate: options.gate,
    requestFields: options.requestFields,
    progressEveryMs: options.progressEveryMs,
    forward,
    log: options.log,
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
      if (needsApproval(name, tools?.get(name), options.gateGlobs, options.allowGlobs)) return gated.call(req.params, extra);
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
