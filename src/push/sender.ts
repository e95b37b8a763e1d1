/**
 * @module push/sender
 * Sends one Web Push message: `web-push` encrypts it (RFC 8291, `aes128gcm`) and signs the VAPID JWT (RFC 8292);
 * this module posts it and reads the push service's answer. `web-push` is loaded on the first push, so a gateway where
 * nobody subscribed never loads it. Posting ourselves (with `fetch`) rather than through `web-push`'s own https
 * client keeps one HTTP client and lets a loopback push service (tests, a bridge on the same host) be plain http.
 *
 * @remarks Left out: retries. A 429 or 5xx throws, and the card job that called this is retried by the scheduler;
 * a 404/410 means the subscription is gone, and it is removed here.
 */
import type * as WebPushLibrary from 'web-push';
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
  /** Replaceable for tests that count requests; the global `fetch` otherwise. */
  fetch?: typeof fetch;
  logger?: { warn(obj: Record<string, unknown>, msg: string): void };
}

type WebPush = typeof WebPushLibrary;

/** Sends Web Push messages with the deployment's VAPID key. */
export class PushSender {
  private library: Promise<WebPush> | null = null;

  constructor(private readonly options: PushSenderOptions) {}

  private webPush(): Promise<WebPush> {
    // Loaded once, on the first push: `web-push` and its dependencies cost nothing to a gateway nobody subscribed to.
    return (this.library ??= import('web-push').then(
      (m) => (m as unknown as { default?: WebPush }).default ?? (m as unknown as WebPush),
    ));
  }

  /** Encrypts `payload` for `subscription`, signs, posts; removes the subscription when the push service says it is gone. */
  async send(subscription: PushSubscriptionRecord, payload: object, options: PushOptions): Promise<PushResult> {
    const webPush = await this.webPush();
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
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(details.endpoint, {
        method: details.method,
        headers: details.headers as Record<string, string>,
        body: details.body ?? undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new PushRetryError(`push service unreachable: ${(error as Error).message}`);
    }
    await response.body?.cancel();
    if (response.status >= 200 && response.status < 300) return 'sent';
    if (response.status === 404 || response.status === 410) {
      await this.options.subscriptions.remove(subscription.endpoint, subscription.person);
      return 'gone';
    }
    if (response.status === 429 || response.status >= 500)
      throw new PushRetryError(`push service answered ${response.status}`);
    // 400 (bad request), 401/403 (a VAPID key the subscription was not made with), 413: retrying cannot help.
    this.options.logger?.warn(
      { status: response.status, person: subscription.person, subscription: subscription.id },
      'push service refused a message',
    );
    return 'refused';
  }
}
