/**
 * @module channels/teams/options
 * How the Teams channel is configured: from the environment only (`TEAMS_*`), since every value but the default
 * target is a credential, the bot's identity, or (in tests) where its authorities live.
 */
import type { Logger } from 'pino';
import { ValidationError } from '../../src/api/errors.js';
import type { TeamsConversationStore } from './conversations.js';

/** The Bot Framework's OpenID metadata: where the keys that sign incoming activities are published. */
export const BOT_FRAMEWORK_OPENID_METADATA = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
/** The Entra ID authority base; the token endpoint is `<login url>/<tenant>/oauth2/v2.0/token`. */
export const MICROSOFT_LOGIN_URL = 'https://login.microsoftonline.com';

/** Everything the Teams channel is built from. */
export interface TeamsChannelOptions {
  /** The Azure bot's app (client) id: the audience of incoming tokens and the client id of outgoing ones. */
  appId: string;
  /** The app's client secret. */
  appPassword: string;
  /** The tenant of the single-tenant bot registration. */
  tenantId: string;
  /** OpenID metadata URL of the Bot Framework (tests point it at a fake). */
  openIdMetadataUrl?: string;
  /** Authority base (tests point it at a fake). */
  loginUrl?: string;
  /** Where `{"type":"teams"}` without a target goes: a conversation id. */
  defaultTarget?: string;
  /** Where conversation references are kept; in memory when absent. */
  conversations?: TeamsConversationStore;
  /** The gateway's public URL (`TOLLGATE_PUBLIC_URL`): cards link to each request's page (full diff, raw arguments). */
  publicUrl?: string | null;
  /** Longest argument preview on a card (1500 characters). */
  maxArgsChars?: number;
  /** Timeout of one outgoing HTTP call in ms (10 000). */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * Reads the Teams settings. Returns null when none of `TEAMS_APP_ID`, `TEAMS_APP_PASSWORD`, `TEAMS_TENANT_ID` is
 * set; throws {@link ValidationError} naming the variable when Teams is configured halfway or a URL is malformed.
 * @example const teams = teamsOptionsFromEnv(config.env); // null when no TEAMS_* credential is set
 */
export function teamsOptionsFromEnv(env: Record<string, string | undefined>): TeamsChannelOptions | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  const appId = value('TEAMS_APP_ID');
  const appPassword = value('TEAMS_APP_PASSWORD');
  const tenantId = value('TEAMS_TENANT_ID');
  if (!appId && !appPassword && !tenantId) return null;
  // Half a configuration is a mistake worth stopping for: cards nobody can tap, or taps nobody can verify.
  if (!appId) throw configError('TEAMS_APP_ID', 'is required when TEAMS_APP_PASSWORD or TEAMS_TENANT_ID is set');
  if (!appPassword)
    throw configError('TEAMS_APP_PASSWORD', "is required when TEAMS_APP_ID is set (the bot's client secret)");
  if (!tenantId) throw configError('TEAMS_TENANT_ID', 'is required when TEAMS_APP_ID is set (bots are single-tenant)');
  const url = (name: string) => {
    const v = value(name);
    if (v && !/^https?:\/\/\S+$/.test(v)) throw configError(name, `is not an http(s) URL: ${v}`);
    return v?.replace(/\/+$/, '');
  };
  return {
    appId,
    appPassword,
    tenantId,
    openIdMetadataUrl: url('TEAMS_OPENID_METADATA_URL'),
    loginUrl: url('TEAMS_LOGIN_URL'),
    defaultTarget: value('TEAMS_CONVERSATION_ID'),
  };
}

function configError(variable: string, message: string): ValidationError {
  return new ValidationError(`${variable}: ${message}`, [{ path: variable, message }]);
}
