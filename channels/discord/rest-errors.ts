/**
 * @module channels/discord/rest-errors
 * Turns `@discordjs/rest` errors into the channel contract's: rate limits become {@link RateLimitedError} with the
 * platform's Retry-After, 4xx answers (unknown channel, missing access, invalid form body, bad token) become
 * {@link PermanentChannelError}, everything else (5xx, network trouble, timeouts) stays a plain error the scheduler
 * retries with backoff.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { PermanentChannelError, RateLimitedError } from '../../src/channel/channel.js';

/** Maps what a REST call threw to what the scheduler understands. Never includes the token (the errors hold none). */
export function toChannelError(error: unknown, call: string): Error {
  if (error instanceof RateLimitError)
    return new RateLimitedError(
      `discord ${call}: rate limited, retry after ${error.retryAfter} ms`,
      Math.max(0, error.retryAfter),
    );
  if (error instanceof DiscordAPIError) {
    const message = `discord ${call}: HTTP ${error.status} ${String(error.code)} ${error.message}`;
    // 408 and 429 reach here only when Discord says "try again"; every other 4xx is about the request itself.
    return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429
      ? new PermanentChannelError(message, String(error.code))
      : new Error(message);
  }
  if (error instanceof HTTPError) return new Error(`discord ${call}: HTTP ${error.status}`);
  return new Error(`discord ${call}: ${error instanceof Error ? error.message : String(error)}`);
}
