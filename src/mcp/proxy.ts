/**
 * @module mcp/proxy
 * An MCP gating proxy: serves the upstream MCP server's tools as its own, and files a tollgate request before
 * forwarding any call that is not read-only. The client sees the upstream's tool list unchanged (annotations kept);
 * a gated call waits for a human verdict and then runs with the approver's edited arguments, or answers an
 * `isError` result saying why it did not run.
 */
import { createHash, randomUUID } from 'node:crypto';
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
import { canonicalJson } from '../requests/args-hash.js';
import { VERSION } from '../version.js';

/** Settings of {@link startMcpProxy}. */
export interface McpProxyOptions {
  /** The server name in `mcp__<name>__<tool>`. */
  name: string;
  /** The transport to the upstream MCP server (a `StdioClientTransport` in the CLI). */
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
}

/** A running proxy. */
export interface McpProxy {
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

/** The refusal the client sees when a call did not run. */
function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text: `tollgate: ${text}` }], isError: true };
}

/** Connects to the upstream, then serves the gated tool list on the downstream transport. */
export async function startMcpProxy(options: McpProxyOptions): Promise<McpProxy> {
  const sessionId = options.sessionId ?? randomUUID();
  const client = new Client({ name: `tollgate-mcp-${options.name}`, version: VERSION });
  let upstreamGone: string | undefined;
  client.onclose = () => {
    upstreamGone ??= `the upstream MCP server "${options.name}" exited; restart the client to reconnect`;
  };
  await client.connect(options.upstream);

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

  const server = new Server({ name: `tollgate:${options.name}`, version: VERSION }, { capabilities: { tools: { listChanged: true } } });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    tools = undefined;
    await server.sendToolListChanged();
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (upstreamGone) throw new McpError(ErrorCode.InternalError, `tollgate: ${upstreamGone}`);
    return { tools: await listAll() };
  });

  // An identical call asked again while its request is pending re-attaches to it (a client retry after its own
  // timeout); once a verdict was used, the same call asked again files a new request instead of reusing the verdict.
  const generations = new Map<string, number>();
  const forward = async (name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
    if (upstreamGone) return refusal(upstreamGone);
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { signal })) as CallToolResult;
    } catch (error) {
      if (upstreamGone || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) return refusal(upstreamGone ?? `the upstream MCP server "${options.name}" closed the connection`);
      throw error;
    }
  };

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name } = req.params;
    const args = req.params.arguments ?? {};
    if (upstreamGone) return refusal(upstreamGone);
    if (!tools?.has(name)) await listAll().catch(() => undefined);
    if (!needsApproval(name, tools?.get(name), options.gateGlobs, options.allowGlobs)) return forward(name, args, extra.signal);

    const argsHash = createHash('sha256').update(canonicalJson(args)).digest('hex');
    const base = createHash('sha256').update(`${options.name}\n${name}\n${argsHash}\n${sessionId}`).digest('hex');
    const generation = generations.get(base) ?? 0;
    let requestId: string | undefined;
    const onAbort = () => {
      if (requestId) void options.gate.cancel(requestId, { reason: 'the MCP client cancelled the call', actor: `mcp:${options.name}` }).catch(() => undefined);
    };
    extra.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const filed = await options.gate.request(
        { ...options.requestFields, tool_name: `mcp__${options.name}__${name}`, tool_args: args, idempotency_key: `mcp:${base}:${generation}` },
        { signal: extra.signal },
      );
      requestId = filed.id;
      if (extra.signal.aborted) onAbort();
      const verdict = filed.status === 'pending' ? await options.gate.wait(filed.id, { signal: extra.signal }) : filed;
      generations.set(base, generation + 1);
      if (!verdict.allowed) return refusal(`${verdict.status}: ${verdict.reason ?? 'no reason given'}`);
      return await forward(name, verdict.approved_args ?? args, extra.signal);
    } catch (error) {
      if (extra.signal.aborted) return refusal('cancelled: the MCP client cancelled the call');
      if (error instanceof McpError) throw error;
      return refusal(`error: could not get a verdict: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      extra.signal.removeEventListener('abort', onAbort);
    }
  });

  await server.connect(options.downstream);
  return {
    async close() {
      await server.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
