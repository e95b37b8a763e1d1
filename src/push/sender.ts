/**
 * @module push/sender
 * Sends one Web Push message: `web-push` encrypts it (RFC 8291, `aes128gcm`) and signs the VAPID JWT (RFC 8292);
 * this module posts it and reads the push service's answer. `web-push` is loaded on the first push (with `require`, so
 * a failed load is tried again), so a gateway where nobody subscribed never loads it. Posting through `postOutbound`
 * (utils/outbound) rather than `web-push`'s own https client checks the address connected to, as for every URL the
 * gateway calls, and lets an allowed push service (tests, a bridge on the same host) be plain http.
 *
 * @remarks Left out: retries. A 429 or 5xx throws, and the card job that called this is retried by the scheduler;
 * a 404/410 means the subscription is gone, and it is removed here.
 */
import { createRequire } from 'node:module';
import type * as WebPushLibrary from 'web-push';
import { describeError } from '../api/errors.js';
import { postOutbound } from '../utils/outbound.js';
import type { PushSubscriptionRecord, PushSubscriptionStore } from './subscriptions.js';
import type { VapidKeys } from './vapid.js';

/** How a message is sent. */
export interface PushOptions {
  /** Seconds the push service keeps the message for an offline device (0: now or never). */
  ttlS: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A later message with the same topic replaces an undelivered earlier one (at most 32 base64url characters). */
  topic?: string;
}

/** What became of one message. */
export type PushResult = 'sent' | 'gone' | 'refused';

/** Thrown when the push service asks to try later (429, 5xx) or cannot be reached. */
export class PushRetryError extends Error {
  override readonly name = 'PushRetryError';
}

/** What the sender needs. */
export interface PushSenderOptions {
  keys: VapidKeys;
  /** The VAPID `sub` claim (`push/vapid.ts`, `vapidSubject`). */
  subject: string;
  subscriptions: PushSubscriptionStore;
  /** Hosts and ranges endpoints may be on although private (`TOLLGATE_OUTBOUND_ALLOW`, utils/outbound). */
  outboundAllow: readonly string[];
  logger?: { warn(obj: Record<string, unknown>, msg: string): void };
  /** Loads `web-push` (default: `require`): a test makes the first load fail. */
  loadLibrary?: () => WebPush;
}

type WebPush = typeof WebPushLibrary;

const requireModule = createRequire(import.meta.url);

/** Sends Web Push messages with the deployment's VAPID key. */
export class PushSender {
  private library: WebPush | null = null;

  constructor(private readonly options: PushSenderOptions) {}

  /**
   * `web-push`, loaded on the first push (a gateway nobody subscribed to never loads it) with `require`, whose failed
   * load is not remembered: the next push loads it again. `import()` keeps a failed load for the life of the process,
   * so one transient failure (a descriptor limit, a file read) silenced every push after it. A failed load is a
   * {@link PushRetryError}: the delivery job is retried, and says why.
   */
  private webPush(): WebPush {
    if (this.library) return this.library;
    try {
      this.library = (this.options.loadLibrary ?? (() => requireModule('web-push') as WebPush))();
    } catch (error) {
      throw new PushRetryError(`web-push could not be loaded: ${describeError(error)}`);
    }
    return this.library;
  }

  /** Encrypts `payload` for `subscription`, signs, posts; removes the subscription when the push service says it is gone. */
  async send(subscription: PushSubscriptionRecord, payload: object, options: PushOptions): Promise<PushResult> {
    const webPush = this.webPush();
    const details = webPush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
      JSON.stringify(payload),
      {
        vapidDetails: {
          subject: this.options.subject,
          publicKey: this.options.keys.publicKey,
          privateKey: this.options.keys.privateKey,
        },
        TTL: Math.max(0, Math.floor(options.ttlS)),
        urgency: options.urgency,
        ...(options.topic ? { topic: options.topic } : {}),
        contentEncoding: 'aes128gcm',
      },
    );
    let status: number;
    try {
      // The one outbound check, against the address actually connected to; a redirect is an answer, never followed.
      status = await postOutbound(
        details.endpoint,
        { method: details.method, headers: details.headers as Record<string, string>, body: details.body ?? '' },
        this.options.outboundAllow,
      );
    } catch (error) {
      throw new PushRetryError(`push service unreachable: ${(error as Error).message}`);
    }
    if (status >= 200 && status < 300) return 'sent';
    if (status === 404 || status === 410) {
      await this.options.subscriptions.remove(subscription.endpoint, subscription.person);
      return 'gone';
    }
    if (status === 429 || status >= 500) throw new PushRetryError(`push service answered ${status}`);
    // 400 (bad request), 401/403 (a VAPID key the subscription was not made with), 413: retrying cannot help.
    this.options.logger?.warn(
      { status: status, person: subscription.person, subscription: subscription.id },
      'push service refused a message',
    );
    return 'refused';
  }
}
