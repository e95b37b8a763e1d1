/**
 * @module cli/mcp
 * `tollgate mcp [--name NAME] [--gate GLOB]… [--allow GLOB]… [--approver ID]… [--timeout S] -- <command> [args…]`:
 * runs `<command>` as the upstream MCP server (stdio) and serves its tools on this process's stdio, asking a human
 * through the gateway (TOLLGATE_URL, TOLLGATE_TOKEN) before any call that is not read-only. stdout carries the MCP
 * protocol only; diagnostics go to stderr.
 */
import { basename } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CreateRequestInput } from '../api-schema.js';
import { GateClient } from '../client/gate-client.js';
import { requestFields, requestOptionsFromFlags } from '../integrations/request-options.js';
import { startMcpProxy } from '../mcp/proxy.js';
import { flag, numberFlag, parseArgs, UsageError } from './args.js';

/** Runs the proxy until the MCP client closes stdin; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [command, ...commandArgs] = args.positionals;
  if (!command) throw new UsageError('no upstream command: put it after "--", e.g. tollgate mcp -- npx -y @modelcontextprotocol/server-filesystem /tmp');
  const name = flag(args, 'name') ?? basename(command).replace(/\.[cm]?[jt]s$/, '');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new UsageError(`--name must be letters, digits, "_" or "-", got "${name}"`);
  const timeoutS = numberFlag(args, 'timeout');
  if (timeoutS !== undefined && (!Number.isInteger(timeoutS) || timeoutS < 1)) throw new UsageError('--timeout must be a whole number of seconds, at least 1');
  const fields: Partial<CreateRequestInput> = { ...requestFields(requestOptionsFromFlags(args), `mcp:${name}`), ...(timeoutS ? { timeout_s: timeoutS } : {}) };
  const gate = new GateClient();

  // The upstream gets our environment minus the gateway token: it has no business approving its own calls.
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'TOLLGATE_TOKEN'));
  const upstream = new StdioClientTransport({ command, args: commandArgs, env, stderr: 'inherit' });
  const proxy = await startMcpProxy({
    name,
    upstream,
    downstream: new StdioServerTransport(),
    gate,
    gateGlobs: args.flags.gate,
    allowGlobs: args.flags.allow,
    requestFields: fields,
  });
  // The stdio server transport does not notice end of input; a client that goes away closes stdin.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await proxy.close();
  return 0;
}
