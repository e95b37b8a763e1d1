/**
 * @module channels/feishu
 * The Feishu/Lark channel: interactive approval cards, verified callbacks, toast + updated card.
 */
export { FeishuChannel, createFeishuChannel, type FeishuChannelDeps, type WsClientLike } from './feishu-channel.js';
export {
  feishuOptionsFromEnv,
  parseDomain,
  FEISHU_DOMAINS,
  type FeishuOptions,
  type FeishuLanguage,
  type FeishuMode,
  type FeishuFileSection,
} from './options.js';
export {
  approvalCard,
  notFoundCard,
  BUTTON_NAMES,
  REASON_INPUT,
  type FeishuCard,
  type ButtonValue,
} from './card-json.js';
export { FEISHU_EVENTS_PATH, type CardActionReply } from './callbacks.js';
export { parseTarget, sendUuid, type ReceiveIdType, type ReceiveTarget } from './targets.js';
export { decryptFeishu, feishuSignature } from './verify.js';
