/**
 * @module cli/request-flags
 * The request options every asking command shares (`ask`, `claude-hook`, `mcp`), read from its flags.
 */
import { ValidationError } from '../api/errors.js';
import type { GateRequestOptions } from '../integrations/request-fields.js';
import { flag, REQUEST_FLAGS, UsageError, type ParsedArgs } from './args.js';

/**
 * Reads the options from CLI flags (`--channel`, `--approver`, `--expires`, `--on-timeout`, `--agent-id`); a bad
 * value is a `UsageError` naming the flag.
 */
export async function requestOptionsFromFlags(args: ParsedArgs): Promise<GateRequestOptions> {
  // The parser's validator is zod, about 45 ms of CPU to load: a command given none of these flags has nothing for it.
  if (!REQUEST_FLAGS.some((name) => args.flags[name] !== undefined)) return {};
  const { parseRequestOptions } = await import('../integrations/request-options.js');
  try {
    return parseRequestOptions({
      channel: args.flags.channel,
      approver: args.flags.approver,
      expires: flag(args, 'expires'),
      on_timeout: flag(args, 'on-timeout'),
      agent_id: flag(args, 'agent-id'),
    });
  } catch (error) {
    if (error instanceof ValidationError)
      throw new UsageError(`--${error.message.replace(/^([a-z_]+)/, (name) => name.replace(/_/g, '-'))}`);
    throw error;
  }
}
