/**
 * @module gateway/options
 * What a {@link Gateway} is built from (`GatewayOptions`, one object as bolt's receivers take), and the defaults a
 * request is filed with when neither it nor the options say otherwise.
 */
import type { Logger } from 'pino';
import type { AuditChain } from '../audit/types.js';
import type { ChangeFeed } from '../lifecycle/change-feed.js';
import type { Channel } from '../channel/channel.js';
import type { Clock } from '../utils/clock.js';
import type { EventStream } from '../events/stream.js';
import type { Directory } from '../people/types.js';
import type { AwayBook } from '../people/away-book.js';
import type { PolicyGate } from '../policy/gate.js';
import type { InsightsStore } from '../insights/types.js';
import type { GatewayDefaults } from '../requests/new-request.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { Scheduler } from '../scheduler/types.js';

/** Everything the gateway is built from. */
export interface GatewayOptions {
  store: ConfirmationStore;
  scheduler: Scheduler;
  /** Change fan-out; `LocalChangeFeed` when absent (one process). */
  feed?: ChangeFeed;
  channels?: Channel[];
  clock?: Clock;
  logger?: Logger;
  defaults?: Partial<GatewayDefaults>;
  /** Lets a requester approve its own request (off by default). */
  allowSelfApproval?: boolean;
  /** HMAC key for `callback_url` signatures; callbacks are unsigned without it. */
  callbackSecret?: string;
  /** Hosts `callback_url` may name although they are loopback or private (`TOLLGATE_OUTBOUND_ALLOW`, `TOLLGATE_CALLBACK_ALLOW`; `*` = any; utils/outbound). */
  callbackAllow?: string[];
  /** The approval policy (rules and standing grants); without it every request is asked as filed. */
  policy?: PolicyGate;
  /** The people directory in force, read at each decision (a reload swaps what it returns); none: every account is its own person. */
  directory?: () => Directory;
  /** Away windows and their delegates (config and database); absent: the config's windows only, none set at run time. */
  away?: AwayBook;
  /** The database's audit chain: `gateway.audit` verifies it and publishes its head. */
  auditChain?: AuditChain;
  /** The stated merge delay (`TOLLGATE_AUDIT_MAX_DELAY`): `audit verify` reports an event pending longer. */
  auditMaxDelayMs?: number;
  /** The event stream (webhook sinks and `GET /v1/events`); absent: no stream. */
  stream?: EventStream;
  /** The store's insights reads (`GET /v1/insights`); absent: no insights. */
  insights?: InsightsStore;
}

/** The request defaults `GatewayOptions.defaults` leaves out: five minutes, the web channel, Approve / Deny, deny on timeout. */
export function gatewayDefaults(given: Partial<GatewayDefaults> = {}): GatewayDefaults {
  return {
    timeoutS: given.timeoutS ?? 300,
    channels: given.channels ?? [{ type: 'web' }],
    options: given.options ?? ['Approve', 'Deny'],
    onTimeout: given.onTimeout ?? 'deny',
  };
}
