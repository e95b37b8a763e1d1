/**
 * @module channels/feishu/api-errors
 * What a failed Open API call means for the scheduler. Feishu answers most failures as HTTP 200 with `code != 0`
 * (the SDK does not throw for those), others as HTTP 4xx/5xx (the SDK throws an AxiosError). Each becomes:
 * a {@link PermanentChannelError} when retrying cannot help (bot not in the chat, invalid receive id, missing scope,
 * wrong app credentials), a {@link RateLimitedError} when Feishu asks to slow down, or a plain Error to be retried.
 */
import { PermanentChannelError, RateLimitedError } from '../../src/channel/channel.js';
import { describeError } from '../../src/api/errors.js';

/** The envelope of every Open API answer. */
export interface FeishuReply<T> {
  code?: number;
  msg?: string;
  data?: T;
}

/** Codes of a rejected tenant token: fetch a fresh one and retry. */
const TOKEN_INVALID = new Set([99991661, 99991663, 99991664, 99991665, 99991668]);
/** Codes of rate limiting (global, per app, per message). */
const RATE_LIMITED = new Set([99991400, 230020, 11232, 11233]);
/** Codes of wrong app credentials at the token endpoint. */
const BAD_CREDENTIALS = new Set([10003, 10012, 10014, 10015]);
/** Codes where the same call can never succeed. */
const PERMANENT = new Map<number, string>([
  [230001, 'invalid request parameter'],
  [230002, 'the bot is not a member of the chat'],
  [230006, 'the bot capability is not enabled for the app'],
  [230011, 'the message was recalled'],
  [230013, 'the bot is not available to this user'],
  [230017, 'the bot cannot send to this chat'],
  [230099, 'the card content was rejected'],
  [99991672, 'the app lacks a required permission (add im:message and publish a new version)'],
  [99991679, 'the app lacks a required permission'],
  [99992402, 'field validation failed'],
]);

/** Returns `reply.data`, or throws what a `code != 0` answer means. */
export function expectOk<T>(operation: string, reply: FeishuReply<T> | undefined): T {
  if (!reply || typeof reply !== 'object') throw new Error(`Feishu ${operation}: empty answer`);
  if (reply.code === 0) return (reply.data ?? {}) as T;
  throw errorForCode(operation, reply.code ?? -1, reply.msg ?? 'no message');
}

/** Maps a business error code to a channel error. */
export function errorForCode(operation: string, code: number, msg: string, retryAfterMs = 1000): Error {
  const text = `Feishu ${operation} failed: code ${code}: ${msg}`;
  if (RATE_LIMITED.has(code)) return new RateLimitedError(`${text} (rate limited)`, retryAfterMs);
  if (TOKEN_INVALID.has(code))
    return new TokenRejectedError(
      `${text} (the tenant access token was rejected; a new one is fetched on retry)`,
      code,
    );
  const permanent = PERMANENT.get(code);
  // Invalid or foreign receive ids (open_id of another app, unknown chat or email).
  if (permanent || (code >= 99992350 && code <= 99992370))
    return new PermanentChannelError(`${text} (${permanent ?? 'invalid receive id'})`, String(code));
  return new Error(text);
}

/** The tenant token was refused (revoked, expired early): the channel drops its cached token. */
export class TokenRejectedError extends Error {
  override readonly name = 'TokenRejectedError';
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

interface AxiosLike {
  isAxiosError?: boolean;
  message?: string;
  code?: string;
  response?: { status?: number; data?: unknown; headers?: Record<string, unknown> };
}

/** Maps anything an SDK call threw to a channel error (never leaks the request config, which holds secrets). */
export function errorForThrown(operation: string, error: unknown): Error {
  if (error instanceof PermanentChannelError || error instanceof RateLimitedError) return error;
  const message = describeError(error);
  // The SDK's token manager throws `failed to get tenant_access_token, code: 10014, msg: app secret invalid`.
  const token = /failed to get tenant_access_token, code: (-?\w+), msg: (.*)$/.exec(message);
  if (token) return credentialError(Number(token[1]), token[2]!);
  const axios = error as AxiosLike;
  if (axios?.isAxiosError && axios.response) {
    const { status = 0, data, headers = {} } = axios.response;
    const body = (typeof data === 'object' && data !== null ? data : {}) as FeishuReply<unknown>;
    if (typeof body.code === 'number' && body.code !== 0) {
      const url = (error as { config?: { url?: string } }).config?.url ?? '';
      if (url.includes('/auth/v3/')) return credentialError(body.code, body.msg ?? '');
      return errorForCode(operation, body.code, body.msg ?? `HTTP ${status}`, retryAfter(headers));
    }
    if (status === 429) return new RateLimitedError(`Feishu ${operation} failed: HTTP 429`, retryAfter(headers));
    return new Error(`Feishu ${operation} failed: HTTP ${status}`);
  }
  if (axios?.isAxiosError) return new Error(`Feishu ${operation} failed: ${axios.code ?? 'network error'}: ${message}`);
  return new Error(`Feishu ${operation} failed: ${message}`);
}

/** True for the error of refused app credentials (wrong FEISHU_APP_ID/FEISHU_APP_SECRET). */
export function isCredentialError(error: Error): boolean {
  return (
    error instanceof PermanentChannelError &&
    error.code !== undefined &&
    BAD_CREDENTIALS.has(Number(error.code)) &&
    error.message.startsWith('Feishu refused the app credentials')
  );
}

function credentialError(code: number, msg: string): Error {
  const text = `Feishu refused the app credentials (code ${code}: ${msg}): check FEISHU_APP_ID and FEISHU_APP_SECRET`;
  return BAD_CREDENTIALS.has(code)
    ? new PermanentChannelError(text, String(code))
    : new Error(`Feishu tenant token request failed (code ${code}: ${msg})`);
}

/** Milliseconds to wait from `x-ogw-ratelimit-reset` or `Retry-After` (seconds), 1 s when absent. */
function retryAfter(headers: Record<string, unknown>): number {
  const value = Number(headers['x-ogw-ratelimit-reset'] ?? headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 600) * 1000 : 1000;
}
