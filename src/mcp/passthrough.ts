/**
 * @module mcp/passthrough
 * What the proxy forwards without asking anyone: resources, prompts, completions and logging, and the upstream's
 * notifications. Reading is not acting, so none of it is gated; only `tools/call` is (see `gated-call.ts`).
 *
 * @remarks The proxy advertises exactly the upstream's capabilities among those it can forward (tools, resources
 * with `subscribe`/`listChanged`, prompts, completions, logging), so a client never calls a method the upstream
 * lacks. Left out: `experimental` and `tasks` capabilities, and requests the upstream would send the client
 * (sampling, elicitation, roots) — the proxy's own client declares none of those, so a well-behaved upstream does
 * not ask.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceRequestSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';

/** The capabilities the proxy serves for an upstream that declared `upstream`: the forwardable subset, unchanged. */
export function mirroredCapabilities(upstream: ServerCapabilities | undefined): ServerCapabilities {
  const caps: ServerCapabilities = {};
  if (upstream?.tools) caps.tools = { ...upstream.tools };
  if (upstream?.resources) caps.resources = { ...upstream.resources };
  if (upstream?.prompts) caps.prompts = { ...upstream.prompts };
  if (upstream?.completions) caps.completions = {};
  if (upstream?.logging) caps.logging = {};
  return caps;
}

/**
 * Registers the pass-through handlers on `server` for the capabilities it was built with, forwarding each request
 * to `client` (the upstream) with the downstream request's abort signal, so a client's cancellation reaches the
 * upstream too. `guard` throws when the upstream is known to be gone.
 */
export function forwardUngated(server: Server, client: Client, caps: ServerCapabilities, guard: () => void): void {
  const opts = (signal: AbortSignal) => ({ signal });
  if (caps.resources) {
    server.setRequestHandler(
      ListResourcesRequestSchema,
      (req, extra) => (guard(), client.listResources(req.params, opts(extra.signal))),
    );
    server.setRequestHandler(
      ListResourceTemplatesRequestSchema,
      (req, extra) => (guard(), client.listResourceTemplates(req.params, opts(extra.signal))),
    );
    server.setRequestHandler(
      ReadResourceRequestSchema,
      (req, extra) => (guard(), client.readResource(req.params, opts(extra.signal))),
    );
    if (caps.resources.subscribe) {
      server.setRequestHandler(
        SubscribeRequestSchema,
        (req, extra) => (guard(), client.subscribeResource(req.params, opts(extra.signal))),
      );
      server.setRequestHandler(
        UnsubscribeRequestSchema,
        (req, extra) => (guard(), client.unsubscribeResource(req.params, opts(extra.signal))),
      );
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => server.notification(n));
    }
    client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => server.notification(n));
  }
  if (caps.prompts) {
    server.setRequestHandler(
      ListPromptsRequestSchema,
      (req, extra) => (guard(), client.listPrompts(req.params, opts(extra.signal))),
    );
    server.setRequestHandler(
      GetPromptRequestSchema,
      (req, extra) => (guard(), client.getPrompt(req.params, opts(extra.signal))),
    );
    client.setNotificationHandler(PromptListChangedNotificationSchema, (n) => server.notification(n));
  }
  if (caps.completions) {
    server.setRequestHandler(
      CompleteRequestSchema,
      (req, extra) => (guard(), client.complete(req.params, opts(extra.signal))),
    );
  }
  if (caps.logging) {
    // Replaces the SDK's own level bookkeeping: the upstream filters its log messages, the proxy only relays them.
    server.setRequestHandler(
      SetLevelRequestSchema,
      (req, extra) => (guard(), client.setLoggingLevel(req.params.level, opts(extra.signal))),
    );
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => server.notification(n));
  }
}
