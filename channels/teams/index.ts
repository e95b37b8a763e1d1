/**
 * @module channels/teams
 * The Teams channel's public surface. The composition root builds it with `teamsOptionsFromEnv(config.env)` (null
 * when Teams is not configured) and `createTeamsChannel`.
 */
export { TeamsChannel, createTeamsChannel, formatMessageRef, parseMessageRef } from './teams-channel.js';
export { TEAMS_MESSAGES_PATH } from './messages.js';
export {
  ADAPTIVE_CARD,
  TOLLGATE_VERB,
  adaptiveCard,
  escapeTextBlock,
  parseActionData,
  type ActionData,
  type AdaptiveCard,
} from './card.js';
export {
  MemoryTeamsConversationStore,
  type TeamsConversationRef,
  type TeamsConversationStore,
} from './conversations.js';
export {
  PostgresTeamsConversationStore,
  SqliteTeamsConversationStore,
  type PostgresHandle,
  type SqliteHandle,
} from './database-conversations.js';
export { teamsOptionsFromEnv, type TeamsChannelOptions } from './options.js';
export { BOT_FRAMEWORK_ISSUER, TeamsTokenVerifier } from './verify.js';
