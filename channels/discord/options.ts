/**
 * @module channels/discord/options
 * How the Discord channel is configured: from the environment only (`DISCORD_*`), since every value but the default
 * target is a credential or the application's identity.
 */
import type { Logger } from 'pino';
import { ValidationError } from '../../src/api/errors.js';

/** Everything the Discord channel is built from. */
export interface DiscordChannelOptions {
  /** Bot token: `Authorization: Bot <token>` on every REST call. */
  botToken: string;
  /** The application's Ed25519 public key, hex (64 characters): checks every interaction. */
  publicKey: string;
  /** The application id (a snowflake). */
  applicationId: string;
  /** REST base URL without the version (`https://discord.com/api`); tests point it at a fake. */
  apiUrl?: string;
  /** Where `{"type":"discord"}` without a target goes: a channel id. */
  defaultTarget?: string;
  /** How old (or how far ahead) an interaction's timestamp may be, in seconds (300). */
  replayWindowS?: number;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards link to each request's page (full diff, raw arguments). */
  publicUrl?: string | null;
  /** Longest argument preview on a card (1500 characters; an embed description holds 4096). */
  maxArgsChars?: number;
  /** Timeout of one REST call in ms (10 000). */
  timeoutMs?: number;
  logger?: Logger;
  /** The current time in ms, for the replay window (defaults to the gateway's clock). */
  now?: () => number;
}

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Reads the Discord settings. Returns null when Discord is not configured (none of `DISCORD_BOT_TOKEN`,
 * `DISCORD_PUBLIC_KEY`, `DISCORD_APPLICATION_ID` set); throws {@link ValidationError} naming the variable when it is
 * configured halfway or a value is malformed.
 *
 * Variables: `DISCORD_BOT_TOKEN`, `DISCORD_PUBLIC_KEY` (hex), `DISCORD_APPLICATION_ID`, `DISCORD_API_URL`,
 * `DISCORD_CHANNEL_ID` (default target).
 * @example const discord = discordOptionsFromEnv(config.env); // null when no DISCORD_* credential is set
 */
export function discordOptionsFromEnv(env: Record<string, string | undefined>): DiscordChannelOptions | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  const botToken = value('DISCORD_BOT_TOKEN');
  const publicKey = value('DISCORD_PUBLIC_KEY');
  const applicationId = value('DISCORD_APPLICATION_ID');
  if (!botToken && !publicKey && !applicationId) return null;
  // Half a configuration is a mistake worth stopping for: cards that nobody can tap, or taps nobody can verify.
  if (!botToken)
    throw configError('DISCORD_BOT_TOKEN', 'is required when DISCORD_PUBLIC_KEY or DISCORD_APPLICATION_ID is set');
  if (!publicKey)
    throw configError(
      'DISCORD_PUBLIC_KEY',
      "is required when DISCORD_BOT_TOKEN is set (the application's public key, hex)",
    );
  if (!/^[0-9a-fA-F]{64}$/.test(publicKey))
    throw configError('DISCORD_PUBLIC_KEY', "must be the 64 hex characters of the application's Ed25519 public key");
  if (!applicationId) throw configError('DISCORD_APPLICATION_ID', 'is required when DISCORD_BOT_TOKEN is set');
  if (!SNOWFLAKE.test(applicationId)) throw configError('DISCORD_APPLICATION_ID', 'must be a numeric application id');
  if (/\s/.test(botToken))
    throw configError('DISCORD_BOT_TOKEN', 'must not contain spaces (give the token without "Bot ")');
  const apiUrl = value('DISCORD_API_URL');
  if (apiUrl && !/^https?:\/\/[^\s]+$/.test(apiUrl))
    throw configError('DISCORD_API_URL', `is not an http(s) URL: ${apiUrl}`);
  const defaultTarget = value('DISCORD_CHANNEL_ID');
  if (defaultTarget && !SNOWFLAKE.test(defaultTarget))
    throw configError('DISCORD_CHANNEL_ID', 'must be a numeric channel id');
  return {
    botToken,
    publicKey: publicKey.toLowerCase(),
    applicationId,
    apiUrl: apiUrl?.replace(/\/+$/, ''),
    defaultTarget,
  };
}

function configError(variable: string, message: string): ValidationError {
  return new ValidationError(`${variable}: ${message}`, [{ path: variable, message }]);
}
