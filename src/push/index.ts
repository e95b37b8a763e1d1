/**
 * @module push
 * Web Push for the inbox: subscriptions, the deployment's VAPID key, action tokens, the payload, the sender, the push
 * channel and the service the routes call. Transport-free: routes live with the web channel and the HTTP API.
 */
export { ActionTokens, ACTION_TOKEN_TTL_MS, type ActionClaims, type ActionTokenProblem } from './action-tokens.js';
export { pushPayload, MAX_PAYLOAD_BYTES, type PushPayload } from './payload.js';
export { createPushChannel, type PushChannel, type PushChannelOptions } from './push-channel.js';
export { PushSender, PushRetryError, type PushOptions, type PushResult, type PushSenderOptions } from './sender.js';
export { PushService, type ActResult, type PushServiceOptions } from './service.js';
export {
  endpointOf,
  parseSubscription,
  type PushSubscriptionRecord,
  type PushSubscriptionStore,
  type SubscriptionInput,
} from './subscriptions.js';
export { setUpPush, type PushSetup, type PushSetupOptions } from './setup.js';
export { vapidKeysFrom, vapidSubject, type VapidKeys } from './vapid.js';
