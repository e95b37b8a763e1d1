/**
 * The fake upstream MCP server (the real SDK `Server`), shared by the stdio entry point (`upstream.ts`) and the
 * Streamable HTTP test. Tools: `read_file` (read-only) and `delete_file` (destructive) answer with the arguments
 * they ran with and append them to the file named by `log`, so a test can see whether (and with what) they ran;
 * `fail_write` (destructive) answers an `isError` result; `crash` exits the process mid-call; `add_tool`
 * (read-only) adds `new_tool` and sends every list-changed notification, a resource update and a log message;
 * `slow_read` (read-only) reports progress twice before answering.
 * Resources, a resource template, a prompt and completions are served too.
 */
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

const pathSchema = { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] };

/** The instructions the fake gives clients (the proxy passes them on). */
export const FAKE_INSTRUCTIONS = 'A fake file server for tollgate tests.';

/** Builds one fake upstream; `log` is the file calls are appended to (none: not recorded). */
export function createFakeUpstream(log?: string): Server {
  const server = new Server(
    { name: 'fake-files', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: FAKE_INSTRUCTIONS,
    },
  );
  const tools: Tool[] = [
    { name: 'read_file', description: 'Reads a file', inputSchema: pathSchema, annotations: { readOnlyHint: true } },
    {
      name: 'delete_file',
      description: 'Deletes a file',
      inputSchema: pathSchema,
      annotations: { destructiveHint: true },
    },
    {
      name: 'fail_write',
      description: 'A write that fails',
      inputSchema: pathSchema,
      annotations: { destructiveHint: true },
    },
    {
      name: 'crash',
      description: 'Exits the server mid-call',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'add_tool',
      description: 'Adds new_tool and announces every list change',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'slow_read',
      description: 'Reports progress twice, then answers',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    },
  ];

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const args = req.params.arguments ?? {};
    if (log) appendFileSync(log, `${JSON.stringify({ tool: req.params.name, args })}\n`);
    switch (req.params.name) {
      case 'read_file':
        return { content: [{ type: 'text', text: `contents of ${String(args.path)}` }] };
      case 'delete_file':
        return { content: [{ type: 'text', text: `deleted ${JSON.stringify(args)}` }] };
      case 'fail_write':
        return { content: [{ type: 'text', text: `disk full writing ${String(args.path)}` }], isError: true };
      case 'crash':
        process.exit(3);
      // eslint-disable-next-line no-fallthrough -- process.exit does not return
      case 'add_tool':
        tools.push({ name: 'new_tool', description: 'Added at run time', inputSchema: { type: 'object' } });
        await server.sendToolListChanged();
        await server.sendResourceListChanged();
        await server.sendPromptListChanged();
        await server.sendResourceUpdated({ uri: 'file:///readme.txt' });
        await server.sendLoggingMessage({ level: 'info', data: 'new_tool added' });
        return { content: [{ type: 'text', text: 'added new_tool' }] };
      case 'slow_read': {
        const progressToken = req.params._meta?.progressToken;
        if (progressToken !== undefined) {
          for (const progress of [1, 2])
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress, total: 2, message: `step ${progress}` },
            });
        }
        return { content: [{ type: 'text', text: 'slow result' }] };
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `unknown tool ${req.params.name}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [{ uri: 'file:///readme.txt', name: 'readme', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'any file' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => ({
    contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: `text of ${req.params.uri}` }],
  }));
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: 'review', description: 'Review a file', arguments: [{ name: 'path', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (req) => ({
    messages: [
      { role: 'user', content: { type: 'text', text: `Please review ${String(req.params.arguments?.path)}` } },
    ],
  }));
  server.setRequestHandler(CompleteRequestSchema, (req) => ({
    completion: { values: ['/tmp/a', '/tmp/b'].filter((v) => v.startsWith(req.params.argument.value)) },
  }));
  return server;
}
