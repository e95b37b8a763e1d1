/**
 * @module channels/telegram/options
 * How the Telegram channel is configured: from the environment only (`TELEGRAM_*`), since the bot token and the
 * webhook secret are credentials and the rest says how updates reach the gateway.
 */
import type { Logger } from 'pino';
import { ValidationError } from '../../src/api/errors.js';

/** How taps reach the gateway: Telegram posts them to our webhook, or the gateway asks with `getUpdates`. */
export type TelegramMode = 'webhook' | 'polling';

/** Everything the Telegram channel is built from. */
export interface TelegramChannelOptions {
  /** The bot token from BotFather (`123456:ABC…`): part of every Bot API URL, so it never appears in logs. */
  botToken: string;
  /** `webhook` (Telegram posts to `POST /channels/telegram/webhook`) or `polling` (long polling, no public URL). */
  mode: TelegramMode;
  /** The secret Telegram sends in `X-Telegram-Bot-Api-Secret-Token`; required in webhook mode. */
  webhookSecret?: string;
  /** Bot API root without a trailing slash (`https://api.telegram.org`); tests point it at a fake. */
  apiRoot?: string;
  /** Where `{"type":"telegram"}` without a target goes: a chat id. */
  defaultTarget?: string;
  /**
   * When set in webhook mode, `start()` registers `<webhookUrl>` with `setWebhook` (and the secret); otherwise the
   * operator registers it once by hand (docs/telegram.md).
   */
  webhookUrl?: string;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards link to each request's page (full diff, raw arguments). */
  publicUrl?: string | null;
  /** Longest argument preview on a card (1500 characters; a message holds 4096). */
  maxArgsChars?: number;
  /** Timeout of one send or edit, in ms (10 000). */
  timeoutMs?: number;
  /** How long one `getUpdates` long poll may wait, in seconds (25). */
  pollTimeoutS?: number;
  /** How long an `update_id` is remembered to refuse a replay, in seconds (600). */
  replayWindowS?: number;
  logger?: Logger;
}

/** A Bot API token as BotFather issues it: the bot's numeric id, a colon, and the secret part. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;
/** What `setWebhook` accepts as `secret_token`. */
const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{1,256}$/;
/** A chat id: a user's id (a DM), or a group's or channel's (negative, `-100…` for supergroups and channels). */
export const CHAT_ID = /^-?\d{1,20}$/;

/**
 * Reads the Telegram settings. Returns null when Telegram is not configured (neither `TELEGRAM_BOT_TOKEN` nor
 * `TELEGRAM_WEBHOOK_SECRET` set); throws {@link ValidationError} naming the variable when it is configured halfway or
 * a value is malformed.
 *
 * Variables: `TELEGRAM_BOT_TOKEN`, `TELEGRAM_WEBHOOK_SECRET`, `TELEGRAM_MODE` (`webhook`, the default, or
 * `polling`), `TELEGRAM_API_ROOT`, `TELEGRAM_CHAT_ID` (default target); `TOLLGATE_PUBLIC_URL` makes webhook mode
 * register its URL at start-up.
 * @example const telegram = telegramOptionsFromEnv(config.env); // null when no TELEGRAM_* credential is set
 */
export function telegramOptionsFromEnv(env: Record<string, string | undefined>): TelegramChannelOptions | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  const botToken = value('TELEGRAM_BOT_TOKEN');
  const webhookSecret = value('TELEGRAM_WEBHOOK_SECRET');
  if (!botToken && !webhookSecret) return null;
  // Half a configuration is a mistake worth stopping for: a webhook nobody can send from, or cards nobody can tap.
  if (!botToken)
    throw configError(
      'TELEGRAM_BOT_TOKEN',
      'is required when TELEGRAM_WEBHOOK_SECRET is set (the token BotFather gave the bot)',
    );
  if (!BOT_TOKEN.test(botToken))
    throw configError('TELEGRAM_BOT_TOKEN', 'must look like 123456789:AA… (the token BotFather gave the bot)');
  const mode = (value('TELEGRAM_MODE') ?? 'webhook').toLowerCase();
  if (mode !== 'webhook' && mode !== 'polling')
    throw configError('TELEGRAM_MODE', `must be webhook or polling, not ${mode}`);
  if (mode === 'webhook' && !webhookSecret)
    throw configError(
      'TELEGRAM_WEBHOOK_SECRET',
      'is required in webhook mode (any 1-256 of A-Z a-z 0-9 _ -), or set TELEGRAM_MODE=polling',
    );
  if (webhookSecret && !WEBHOOK_SECRET.test(webhookSecret))
    throw configError(
      'TELEGRAM_WEBHOOK_SECRET',
      'must be 1-256 characters of A-Z a-z 0-9 _ - (what Telegram accepts as secret_token)',
    );
  const apiRoot = value('TELEGRAM_API_ROOT');
  if (apiRoot && !/^https?:\/\/[^\s]+$/.test(apiRoot))
    throw configError('TELEGRAM_API_ROOT', `is not an http(s) URL: ${apiRoot}`);
  const defaultTarget = value('TELEGRAM_CHAT_ID');
  if (defaultTarget && !CHAT_ID.test(defaultTarget))
    throw configError('TELEGRAM_CHAT_ID', 'must be a numeric chat id (negative for groups and channels)');
  const publicUrl = value('TOLLGATE_PUBLIC_URL')?.replace(/\/+$/, '');
  return {
    botToken,
    mode,
    webhookSecret,
    apiRoot: apiRoot?.replace(/\/+$/, ''),
    defaultTarget,
    webhookUrl: mode === 'webhook' && publicUrl ? `${publicUrl}/channels/telegram/webhook` : undefined,
  };
}

function configError(variable: string, message: string): ValidationError {
  return new ValidationError(`${variable}: ${message}`, [{ path: variable, message }]);
}
