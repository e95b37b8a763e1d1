/**
 * @module channels/telegram
 * The Telegram channel's public surface. The composition root builds it with `telegramOptionsFromEnv(config.env)`
 * (null when Telegram is not configured) and `createTelegramChannel`.
 */
export { isNotModified, toChannelError } from './api-errors.js';
export {
  callbackData,
  cardMessage,
  escapeHtml,
  parseCallbackData,
  MAX_CALLBACK_DATA,
  type ButtonRef,
  type InlineButton,
  type TelegramMessage,
} from './message.js';
export { telegramOptionsFromEnv, type TelegramChannelOptions, type TelegramMode } from './options.js';
export { TelegramChannel, createTelegramChannel, formatMessageRef, parseMessageRef } from './telegram-channel.js';
export { TELEGRAM_WEBHOOK_PATH } from './updates.js';
export { SECRET_HEADER, SeenUpdates, secretTokenProblem } from './verify.js';
