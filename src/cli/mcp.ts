/**
 * @module cli/mcp
 * `tollgate mcp [--name NAME] [--gate GLOB]… [--allow GLOB]… [--approver ID]… [--timeout S] [--progress S] [--require-verdict [--jwks-url URL]] -- <command> [args…]`
 * (or `--upstream-url URL [--header "Name: value"]…` instead of the command): runs `<command>` as the upstream MCP
 * server (stdio), or connects to a Streamable HTTP one, and serves what it offers on this process's stdio, asking a
 * human through the gateway (TOLLGATE_URL, TOLLGATE_TOKEN) before any tool call that is not read-only. stdout
 * carries the MCP protocol only; diagnostics go to stderr.
 */
import { basename } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CreateRequestInput } from '../api/api-schema.js';
import { GateClient } from '../client/gate-client.js';
import { requestFields } from '../integrations/request-options.js';
import { requestOptionsFromFlags } from './request-flags.js';
import { startMcpProxy } from '../mcp/proxy.js';
import { terminalText } from '../utils/terminal-text.js';
import { flag, numberFlag, parseArgs, REQUEST_FLAGS, UsageError, type ArgSpec, type ParsedArgs } from './args.js';

/** The options of `tollgate mcp`. */
export const MCP_ARGS: ArgSpec = {
  values: ['name', 'gate', 'allow', 'timeout', 'progress', 'jwks-url', 'upstream-url', 'header', ...REQUEST_FLAGS],
  booleans: ['require-verdict'],
};

/** Runs the proxy until the MCP client closes stdin; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, MCP_ARGS);
  const { upstream, defaultName } = upstreamOf(args);
  const name = flag(args, 'name') ?? defaultName;
  if (!name)
    throw new UsageError(
      '--name is required with --upstream-url: use the name the MCP client knows the server by (it is the <name> in mcp__<name>__<tool>)',
    );
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
    throw new UsageError(`--name must be letters, digits, "_" or "-", got "${name}"`);
  const timeoutS = numberFlag(args, 'timeout');
  if (timeoutS !== undefined && (!Number.isInteger(timeoutS) || timeoutS < 1))
    throw new UsageError('--timeout must be a whole number of seconds, at least 1');
  const fields: Partial<CreateRequestInput> = {
    ...requestFields(await requestOptionsFromFlags(args), `mcp:${name}`),
    ...(timeoutS ? { timeout_s: timeoutS } : {}),
  };
  const progressS = numberFlag(args, 'progress');
  if (progressS !== undefined && progressS <= 0) throw new UsageError('--progress must be more than 0 seconds');
  const gate = new GateClient();
  // --require-verdict: forward an approval only with a signed verdict that verifies against the gateway's keys.
  const jwksUrl = flag(args, 'jwks-url');
  if (jwksUrl !== undefined && !flag(args, 'require-verdict'))
    throw new UsageError('--jwks-url applies to --require-verdict only');
  const requireVerdict = flag(args, 'require-verdict')
    ? { jwksUrl: jwksUrl ?? `${gate.url}/.well-known/jwks.json` }
    : undefined;

  const proxy = await startMcpProxy({
    name,
    upstream,
    downstream: new StdioServerTransport(),
    gate,
    gateGlobs: args.flags.gate,
    allowGlobs: args.flags.allow,
    requestFields: fields,
    progressEveryMs: progressS === undefined ? undefined : progressS * 1000,
    log: (message) => process.stderr.write(`${terminalText(message)}\n`),
    requireVerdict,
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

/** The upstream transport: a stdio command after `--`, or `--upstream-url` (Streamable HTTP) with `--header`s. */
function upstreamOf(args: ParsedArgs): { upstream: Transport; defaultName?: string } {
  const url = flag(args, 'upstream-url');
  const [command, ...commandArgs] = args.positionals;
  if (url !== undefined) {
    if (command) throw new UsageError('give either --upstream-url or a command after "--", not both');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--upstream-url must be an http:// or https:// URL, got "${url}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UsageError(`--upstream-url must be an http:// or https:// URL, got "${url}"`);
    const headers: Record<string, string> = {};
    for (const header of args.flags.header ?? []) {
      const colon = header.indexOf(':');
      if (colon < 1) throw new UsageError(`--header must look like "Name: value", got "${header}"`);
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
    return { upstream: new StreamableHTTPClientTransport(parsed, { requestInit: { headers } }) };
  }
  if (!command)
    throw new UsageError(
      'no upstream: put its command after "--" (tollgate mcp -- npx -y @modelcontextprotocol/server-filesystem /tmp) or give --upstream-url',
    );
  if (args.flags.header) throw new UsageError('--header applies to --upstream-url only');
  // The upstream gets our environment minus the gateway token: it has no business approving its own calls.
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'TOLLGATE_TOKEN'),
  );
  return {
    upstream: new StdioClientTransport({ command, args: commandArgs, env, stderr: 'inherit' }),
    defaultName: basename(command).replace(/\.[cm]?[jt]s$/, ''),
  };
}
