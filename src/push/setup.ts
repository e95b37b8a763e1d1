/**
 * @module push/setup
 * Builds Web Push for a gateway: the VAPID key pair and the action-token key from the deployment's secrets (generated
 * on first start, kept in the database, so replicas agree), the sender, the push channel and the service the routes
 * call. The composition root (`server.ts`) is the one caller.
 */
import type { DeploymentSecrets } from '../contracts/deployment-secrets.js';
import type { SharedMarks } from '../contracts/shared-marks.js';
import { ActionTokens } from './action-tokens.js';
import { createPushChannel, type PushChannel } from './push-channel.js';
import { PushSender } from './sender.js';
import { PushService } from './service.js';
import type { PushSubscriptionStore } from './subscriptions.js';
import { vapidKeysFrom, vapidSubject } from './vapid.js';

/** What Web Push is built from. */
export interface PushSetupOptions {
  secrets: DeploymentSecrets;
  /** Where action tokens are spent: the database's marks on either dialect. */
  marks: SharedMarks;
  subscriptions: PushSubscriptionStore;
  /** `TOLLGATE_VAPID_SUBJECT` is read from here. */
  env: Record<string, string | undefined>;
  publicUrl: string | null;
  /** Hosts and ranges push endpoints may be on although private (`TOLLGATE_OUTBOUND_ALLOW`, utils/outbound). */
  outboundAllow: readonly string[];
  /** Where the inbox is, read when a notification is sent (the listening address is known only once listening). */
  baseUrl: () => string;
  now: () => number;
  logger?: { warn(obj: Record<string, unknown>, msg: string): void };
}

/** Web Push, wired. */
export interface PushSetup {
  channel: PushChannel;
  service: PushService;
}

/**
 * Reads (or generates) the keys and builds the push parts.
 * @example const push = await setUpPush({ secrets, marks, subscriptions, env, publicUrl, outboundAllow, baseUrl, now });
 */
export async function setUpPush(options: PushSetupOptions): Promise<PushSetup> {
  const subject = vapidSubject(options.env.TOLLGATE_VAPID_SUBJECT || undefined, options.publicUrl);
  const keys = vapidKeysFrom(await options.secrets.get('vapid'));
  const tokens = new ActionTokens(await options.secrets.get('push_actions'), options.marks);
  const sender = new PushSender({
    keys,
    subject,
    subscriptions: options.subscriptions,
    outboundAllow: options.outboundAllow,
    logger: options.logger,
  });
  const channel = createPushChannel({
    sender,
    subscriptions: options.subscriptions,
    tokens,
    now: options.now,
    baseUrl: options.baseUrl,
    logger: options.logger,
  });
  const service = new PushService({
    keys,
    subscriptions: options.subscriptions,
    tokens,
    outboundAllow: options.outboundAllow,
    now: options.now,
  });
  return { channel, service };
}
