/**
 * @module cli/request-flags
 * The request options every asking command shares (`ask`, `claude-hook`, `mcp`), read from its flags.
 */
import { ValidationError } from '../api/errors.js';
import { parseRequestOptions, type GateRequestOptions } from '../integrations/request-options.js';
import { flag, UsageError, type ParsedArgs } from './args.js';

/**
 * Reads the options from CLI flags (`--channel`, `--approver`, `--expires`, `--on-timeout`, `--agent-id`); a bad
 * value is a `UsageError` naming the flag.
 */
export function requestOptionsFromFlags(args: ParsedArgs): GateRequestOptions {
  try {
    return parseRequestOptions({
      channel: args.flags.channel,
      approver: args.flags.approver,
      expires: flag(args, 'expires'),
      on_timeout: flag(args, 'on-timeout'),
      agent_id: flag(args, 'agent-id'),
    });
  } catch (error) {
    if (error instanceof ValidationError) throw new UsageError(`--${error.message.replace(/^([a-z_]+)/, (name) => name.replace(/_/g, '-'))}`);
    throw error;
  }
}
