/**
 * @module server/background
 * The background work `createServer` (src/server.ts) starts once the gateway is up: the email look-ups of people given
 * only an email (never on a decision), and the event stream's delivery to its sinks with the hourly signed anchor.
 */
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import type { EventStream } from '../events/stream.js';
import type { Gateway } from '../gateway/gateway.js';
import { EmailResolver, MemoryResolutionCache } from '../people/email-resolution.js';
import type { PeopleSource } from '../people/source.js';
import type { OpenStores } from '../stores/open-store.js';
import type { Clock } from '../utils/clock.js';
import type { AuditTrail } from './audit-trail.js';

/** What the background work runs on. */
export interface BackgroundParts {
  gateway: Gateway;
  people: PeopleSource;
  channels: Channel[];
  stores: OpenStores;
  events: EventStream;
  trail: AuditTrail;
  clock: Clock;
  logger: Logger;
  /** How long a looked-up account is trusted (`resolutionTtlMs`). */
  lookupTtlMs: number;
  /** How often the signed audit head goes to the sinks (`TOLLGATE_AUDIT_ANCHOR_EVERY_S`). */
  anchorEveryMs: number;
}

/** Starts the look-ups and the event stream; returns the resolver, which the server's handle stops. */
export function startBackground(parts: BackgroundParts): EmailResolver {
  const { gateway, events, trail } = parts;
  // People given only an email get their Slack/Feishu accounts looked up in the background (never on a decision).
  const resolver = new EmailResolver({
    source: parts.people,
    channels: parts.channels,
    cache: parts.stores.resolutions ?? new MemoryResolutionCache(),
    clock: parts.clock,
    logger: parts.logger.child({ component: 'people' }),
    ttlMs: parts.lookupTtlMs,
  });
  resolver.start();
  // The audit head goes to the sinks hourly (TOLLGATE_AUDIT_ANCHOR_EVERY_S), signed: an anchor kept outside the database.
  const audit = gateway.audit;
  events.start(
    // The stream reads placed events: this process's integrator placing them wakes it, and a change another replica's
    // integrator may place wakes it a little later (`events/stream`).
    {
      placed: (listener) => trail.integrator.onPlaced(listener),
      changes: (listener) => gateway.subscribe(() => listener()),
    },
    1000,
    audit ? { head: () => audit.head(), everyMs: parts.anchorEveryMs } : undefined,
  );
  return resolver;
}
