/**
 * @module channels/slack/options
 * How the Slack channel is configured: secrets from the environment only, the rest (default channel, bot ids) from the
 * environment or the `slack:` section of `tollgate.yaml`, the environment winning.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { ValidationError } from '../../src/api/errors.js';
import { fieldProblems, validationError } from '../../src/api/validation.js';

/** Everything the Slack channel is built from. */
export interface SlackChannelOptions {
  /** Bot token (`xoxb-…`), for `chat.postMessage`, `chat.update`, `chat.postEphemeral`, `views.open`. */
  botToken: string;
  /** Signing secret: checks every callback on `POST /channels/slack/events`. Needed unless Socket Mode is used. */
  signingSecret?: string;
  /** App-level token (`xapp-…`): turns on Socket Mode, so no public URL is needed. */
  appToken?: string;
  /** Web API base URL (`https://slack.com/api/`); tests point it at a fake server. */
  apiUrl?: string;
  /** Where `{"type":"slack"}` without a target goes: a channel id (`C0123`) or a user id for a DM. */
  defaultTarget?: string;
  /** The bot's ids; with both, Bolt skips its `auth.test` call. */
  botId?: string;
  botUserId?: string;
  /** How far a callback's timestamp may be from now, in seconds, in either direction (300). */
  replayWindowS?: number;
  /** Longest argument preview on a card (2000 characters; Slack allows 3000 per section). */
  maxArgsChars?: number;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards link to each request's page (full diff, raw arguments). */
  publicUrl?: string | null;
  /** Timeout of one Web API call in ms (10 000). */
  timeoutMs?: number;
  logger?: Logger;
  /** The current time in ms, for the replay window (defaults to `Date.now`). */
  now?: () => number;
}

/** The `slack:` section of `tollgate.yaml` (no secrets here: those come from the environment). */
export const slackFileSectionSchema = z.strictObject({
  default_target: z.string().min(1).max(200).optional(),
  bot_id: z.string().min(1).max(50).optional(),
  bot_user_id: z.string().min(1).max(50).optional(),
  replay_window_s: z.int().min(30).max(300).optional(),
  max_args_chars: z.int().min(100).max(2800).optional(),
});

/**
 * Reads the Slack settings. Returns null when Slack is not configured (`SLACK_BOT_TOKEN` unset); throws
 * {@link ValidationError} naming the variable or file key when it is configured halfway.
 *
 * Variables: `SLACK_BOT_TOKEN`, `SLACK_SIGNING_SECRET`, `SLACK_APP_TOKEN` (Socket Mode), `SLACK_API_URL`,
 * `SLACK_DEFAULT_CHANNEL`, `SLACK_BOT_ID`, `SLACK_BOT_USER_ID`.
 * @example const slack = slackOptionsFromEnv(config.env, config.file.slack); // null when SLACK_BOT_TOKEN is unset
 */
export function slackOptionsFromEnv(
  env: Record<string, string | undefined>,
  fileSection?: unknown,
): SlackChannelOptions | null {
  const file = slackFileSectionSchema.safeParse(fileSection ?? {});
  if (!file.success) {
    throw validationError(fieldProblems(file.error.issues, 'slack'));
  }
  const value = (name: string) => env[name]?.trim() || undefined;
  const botToken = value('SLACK_BOT_TOKEN');
  const signingSecret = value('SLACK_SIGNING_SECRET');
  const appToken = value('SLACK_APP_TOKEN');
  if (!botToken) {
    if (signingSecret || appToken)
      throw configError('SLACK_BOT_TOKEN', 'is required when SLACK_SIGNING_SECRET or SLACK_APP_TOKEN is set');
    return null;
  }
  if (!signingSecret && !appToken)
    throw configError('SLACK_SIGNING_SECRET', 'is required (or set SLACK_APP_TOKEN for Socket Mode)');
  if (appToken && !appToken.startsWith('xapp-'))
    throw configError('SLACK_APP_TOKEN', 'must be an app-level token starting with "xapp-"');
  const apiUrl = value('SLACK_API_URL');
  if (apiUrl && !/^https?:\/\/[^\s]+$/.test(apiUrl))
    throw configError('SLACK_API_URL', `is not an http(s) URL: ${apiUrl}`);
  return {
    botToken,
    signingSecret,
    appToken,
    apiUrl: apiUrl && !apiUrl.endsWith('/') ? `${apiUrl}/` : apiUrl,
    defaultTarget: value('SLACK_DEFAULT_CHANNEL') ?? file.data.default_target,
    botId: value('SLACK_BOT_ID') ?? file.data.bot_id,
    botUserId: value('SLACK_BOT_USER_ID') ?? file.data.bot_user_id,
    replayWindowS: file.data.replay_window_s,
    maxArgsChars: file.data.max_args_chars,
  };
}

function configError(variable: string, message: string): ValidationError {
  return new ValidationError(`${variable}: ${message}`, [{ path: variable, message }]);
}
