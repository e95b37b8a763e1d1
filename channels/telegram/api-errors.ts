/**
 * @module channels/telegram/api-errors
 * Turns grammY errors into the channel contract's: 429 becomes {@link RateLimitedError} with the platform's
 * `retry_after`, other 4xx answers (chat not found, bot blocked by the user, bad token, text Telegram cannot parse)
 * become {@link PermanentChannelError}, everything else (5xx, network trouble, timeouts) stays a plain error the
 * scheduler retries with backoff.
 */
import { GrammyError, HttpError } from 'grammy';
import { PermanentChannelError, RateLimitedError } from '../../src/channel/channel.js';

/** Maps what a Bot API call threw to what the scheduler understands. Never includes the token (grammY errors hold none). */
export function toChannelError(error: unknown, method: string): Error {
  if (error instanceof GrammyError) {
    const message = `telegram ${method}: ${error.error_code} ${error.description}`;
    if (error.error_code === 429) {
      // Telegram says how long in seconds; without it, a minute is what its flood control usually asks for.
      const seconds = error.parameters.retry_after ?? 60;
      return new RateLimitedError(
        `telegram ${method}: rate limited, retry after ${seconds} s`,
        Math.max(0, seconds) * 1000,
      );
    }
    return error.error_code >= 400 && error.error_code < 500
      ? new PermanentChannelError(message, String(error.error_code))
      : new Error(message);
  }
  // grammY's HttpError says which call failed and never the URL (which holds the token).
  if (error instanceof HttpError) return new Error(`telegram ${method}: ${error.message}`);
  return new Error(`telegram ${method}: ${error instanceof Error ? error.message : String(error)}`);
}

/** True when Telegram refused an edit only because the message already says exactly that (a repeated update). */
export function isNotModified(error: unknown): boolean {
  return error instanceof GrammyError && error.error_code === 400 && /message is not modified/i.test(error.description);
}
