/**
 * A fake upstream MCP server on stdio (the real SDK `Server`): `read_file` (annotated read-only) and
 * `delete_file` (destructive), which answers with the arguments it ran with and appends them to the file named by
 * `FAKE_MCP_LOG`, so a test can see whether (and with what) it ran; `crash`
 * exits the process mid-call.
 */
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const pathSchema = { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] };
const server = new Server({ name: 'fake-files', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'read_file', description: 'Reads a file', inputSchema: pathSchema, annotations: { readOnlyHint: true } },
    { name: 'delete_file', description: 'Deletes a file', inputSchema: pathSchema, annotations: { destructiveHint: true } },
    { name: 'crash', description: 'Exits the server mid-call', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (req): CallToolResult => {
  const args = req.params.arguments ?? {};
  if (process.env.FAKE_MCP_LOG) appendFileSync(process.env.FAKE_MCP_LOG, `${JSON.stringify({ tool: req.params.name, args })}\n`);
  if (req.params.name === 'read_file') return { content: [{ type: 'text', text: `contents of ${String(args.path)}` }] };
  if (req.params.name === 'delete_file') return { content: [{ type: 'text', text: `deleted ${JSON.stringify(args)}` }] };
  if (req.params.name === 'crash') process.exit(3);
  return { content: [{ type: 'text', text: `unknown tool ${req.params.name}` }], isError: true };
});

await server.connect(new StdioServerTransport());
