/**
 * @module channels/discord
 * The Discord channel's public surface. The composition root builds it with `discordOptionsFromEnv(config.env)`
 * (null when Discord is not configured) and `createDiscordChannel`.
 */
export { DiscordChannel, createDiscordChannel, formatMessageRef, parseMessageRef } from './discord-channel.js';
export { DISCORD_INTERACTIONS_PATH } from './interactions.js';
export {
  cardMessage,
  customId,
  escapeMarkdown,
  neutraliseMentions,
  parseCustomId,
  type DiscordMessage,
} from './message.js';
export { discordOptionsFromEnv, type DiscordChannelOptions } from './options.js';
export { publicKeyFromHex } from './verify.js';
