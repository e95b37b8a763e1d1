/**
 * The fake upstream MCP server on stdio (see `fake-server.ts`); calls are appended to the file named by
 * `FAKE_MCP_LOG`.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFakeUpstream } from './fake-server.js';

await createFakeUpstream(process.env.FAKE_MCP_LOG).connect(new StdioServerTransport());
