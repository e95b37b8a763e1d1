/**
 * @module channels/slack
 * The Slack channel's public surface. The composition root builds it with
 * `slackOptionsFromEnv(config.env, config.file.slack)` (null when Slack is not configured) and `createSlackChannel`.
 */
export { cardMessage, escapeMrkdwn, type SlackMessage } from './blocks.js';
export { slackFileSectionSchema, slackOptionsFromEnv, type SlackChannelOptions } from './options.js';
export {
  SLACK_EVENTS_PATH,
  SlackChannel,
  createSlackChannel,
  formatMessageRef,
  parseMessageRef,
} from './slack-channel.js';
export { PERMANENT_SLACK_ERRORS } from './web-api-errors.js';
