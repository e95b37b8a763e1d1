/**
 * @module push/push-channel
 * Web Push as a channel: its card target is a person, and its "card" is a notification on each of that person's
 * subscribed devices. Being a channel, it rides the gateway's delivery and update jobs: a request that starts waiting
 * for a person (filed, or escalated to them) is delivered once by one replica, with retries; a decision elsewhere or
 * an expiry runs `update`, which replaces each notification (same tag, same topic) with the outcome.
 *
 * @remarks Left out: people reached only through an account (`web:alice` as an approver) or an empty approver list;
 * like direct messages, pushes go to the people a request names by `person:` or `group:`.
 */
import { describeError } from '../api/errors.js';
import type { CardRef, Channel } from '../channel/channel.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { ACTION_TOKEN_TTL_MS, type ActionTokens } from './action-tokens.js';
import { pushPayload } from './payload.js';
import { PushRetryError, type PushResult, type PushSender } from './sender.js';
import type { PushSubscriptionRecord, PushSubscriptionStore } from './subscriptions.js';

/** What the push channel is built from. */
export interface PushChannelOptions {
  sender: PushSender;
  subscriptions: PushSubscriptionStore;
  tokens: ActionTokens;
  /** The gateway's clock (epoch ms). */
  now: () => number;
  /** Where the inbox is (the public URL, or the listening address): notifications link to its request pages. */
  baseUrl: () => string;
  /** Told of every device a message failed for, and why. */
  logger?: { warn(obj: Record<string, unknown>, msg: string): void };
}

/** How long an outcome waits at the push service for an offline device: a day, then nobody needs it. */
const OUTCOME_TTL_S = 86_400;

/** The push channel, with the target that reaches one person. */
export interface PushChannel extends Channel {
  readonly name: 'push';
  personTarget(person: string): string;
}

/**
 * Creates the push channel.
 * @example const push = createPushChannel({ sender, subscriptions, tokens, now: () => clock.now(), baseUrl });
 */
export function createPushChannel(options: PushChannelOptions): PushChannel {
  const topicOf = (request: ConfirmationRequest) => request.id.replace(/-/g, '');
  async function toEach(
    person: string,
    message: (device: PushSubscriptionRecord) => Promise<PushResult>,
  ): Promise<number> {
    const devices = await options.subscriptions.ofPerson(person);
    const results = await Promise.allSettled(devices.map(message));
    const failed = results.filter((r) => r.status === 'rejected');
    // Said for each device, retried or not: a failure that is no PushRetryError (a store error, web-push refusing the
    // keys) is not retried, and without this line it left no trace but a missing notification.
    for (const r of failed)
      options.logger?.warn({ person, err: describeError(r.reason) }, 'push: a message to a device was not sent');
    // Retry only when no device got it and a retry could help: a device that got it must not be pushed twice.
    if (devices.length && failed.length === devices.length && failed.some((r) => r.reason instanceof PushRetryError))
      throw (failed[0] as PromiseRejectedResult).reason;
    return results.filter((r) => r.status === 'fulfilled' && r.value === 'sent').length;
  }
  return {
    name: 'push',
    personTarget: (person) => person,
    async send(request, person) {
      const now = options.now();
      const expiresAt = Math.min(request.expiresAt.getTime(), now + ACTION_TOKEN_TTL_MS);
      const sent = await toEach(person, (device) => {
        const token = options.tokens.sign({
          requestId: request.id,
          nonce: request.nonce,
          person,
          subscriptionId: device.id,
          expiresAt,
        });
        const ttlS = (request.expiresAt.getTime() - now) / 1000;
        return options.sender.send(device, pushPayload(request, options.baseUrl(), token), {
          ttlS,
          urgency: 'high',
          topic: topicOf(request),
        });
      });
      // The reference is the tag the notifications carry; kept even when no device got it, so the outcome still follows.
      return `${request.id}#${sent}`;
    },
    async update(request, card: CardRef) {
      // A partial quorum changes nothing on a lock screen; only the outcome replaces the notification.
      if (request.status === 'pending') return;
      await toEach(card.target, (device) =>
        options.sender.send(device, pushPayload(request, options.baseUrl()), {
          ttlS: OUTCOME_TTL_S,
          urgency: 'normal',
          topic: topicOf(request),
        }),
      );
    },
  };
}
