/**
 * @module channels/slack/web-api-errors
 * Turns `@slack/web-api` errors into the channel contract's: rate limits become {@link RateLimitedError} with the
 * platform's Retry-After, errors that no retry can fix become {@link PermanentChannelError}, everything else (5xx,
 * network trouble, Slack's own internal errors) stays a plain error that the scheduler retries with backoff.
 */
import { ErrorCode, type WebAPICallError } from '@slack/web-api';
import { PermanentChannelError, RateLimitedError } from '../../src/channel/channel.js';

/** Slack error codes that mean "this will not work however often you try". */
export const PERMANENT_SLACK_ERRORS: ReadonlySet<string> = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'channel_is_archived',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'org_login_required',
  'ekm_access_denied',
  'restricted_action',
  'user_not_found',
  'user_not_in_channel',
  'cannot_dm_bot',
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'too_many_attachments',
  'invalid_arguments',
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
]);

function isWebApiError(error: unknown): error is WebAPICallError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('slack_webapi_');
}

/** Maps what a Web API call threw to what the scheduler understands. Never includes the token. */
export function toChannelError(error: unknown, method: string): Error {
  if (!isWebApiError(error)) return error instanceof Error ? error : new Error(String(error));
  switch (error.code) {
    case ErrorCode.RateLimitedError:
      return new RateLimitedError(
        `slack ${method}: rate limited, retry after ${error.retryAfter} s`,
        Math.max(0, error.retryAfter) * 1000,
      );
    case ErrorCode.PlatformError: {
      const code = String(error.data.error ?? 'unknown_error');
      if (code === 'ratelimited') return new RateLimitedError(`slack ${method}: ratelimited`, 1000);
      const message = `slack ${method}: ${code}`;
      return PERMANENT_SLACK_ERRORS.has(code) ? new PermanentChannelError(message, code) : new Error(message);
    }
    case ErrorCode.HTTPError:
      return new Error(`slack ${method}: HTTP ${error.statusCode}`);
    case ErrorCode.RequestError:
      return new Error(`slack ${method}: request failed: ${error.original.message}`);
    default:
      return error;
  }
}
