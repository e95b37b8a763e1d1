/**
 * @module cli/hook-io
 * What every hook command (`tollgate claude-hook`, `tollgate hook <agent>`) reads and writes: its standard streams
 * (replaceable in tests) and the bounded read of the hook input on stdin. Import-free but for the fd-level streams:
 * it is part of the hook's one-file bundle.
 */
import { gatewayConnection, type GatewayConnection } from '../client/connection.js';
import { flag, type ParsedArgs } from './args.js';
import { fdWriter, stdinChunks } from './sync-stdio.js';

/** Largest hook input read from stdin. */
export const MAX_INPUT_BYTES = 1024 * 1024;

/**
 * Set by `bin/tollgate.js` in a source checkout whose hook bundle is stale or missing: why. The hook then refuses the
 * call with it (the agent's own deny) instead of running: a gate running old code, or silently ten times slower
 * through tsx, is worse than one that says what to do.
 */
export const HOOK_REFUSE_ENV = 'TOLLGATE_HOOK_REFUSE';

/** The process streams a hook uses (replaceable in tests). */
export interface HookIo {
  stdin: AsyncIterable<Buffer | string>;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
}

/** The process's own streams, through their file descriptors (see `sync-stdio`). */
export function processIo(): HookIo {
  return { stdin: stdinChunks(), stdout: fdWriter(1), stderr: fdWriter(2), env: process.env };
}

/** All of stdin as text; throws past {@link MAX_INPUT_BYTES}. */
export async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`hook input is larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The connection to a hook route (`path`), and its URL with the request flags as its query (the gateway validates
 * them). Throws when the environment names no usable gateway or token.
 */
export function hookRoute(
  env: HookIo['env'],
  path: string,
  args: ParsedArgs,
): { connection: GatewayConnection; url: URL } {
  const connection = gatewayConnection({ env, caller: 'hook' });
  if (!URL.canParse(connection.url)) throw new Error(`gateway URL is not a valid URL: "${connection.url}"`);
  const url = new URL(`${connection.url}${path}`);
  for (const channel of args.flags.channel ?? []) url.searchParams.append('channel', channel);
  for (const approver of args.flags.approver ?? []) url.searchParams.append('approver', approver);
  const single = {
    expires: flag(args, 'expires'),
    on_timeout: flag(args, 'on-timeout'),
    agent_id: flag(args, 'agent-id'),
  };
  for (const [key, value] of Object.entries(single)) if (value !== undefined) url.searchParams.set(key, value);
  return { connection, url };
}
