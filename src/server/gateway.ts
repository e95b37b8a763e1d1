/**
 * @module server/gateway
 * The gateway `createServer` (src/server.ts) runs: the people directory, the event stream over the events table, and
 * the {@link Gateway} built on the opened stores, with its audit service handed the signer, the checkpoint check,
 * the integrator and the keys it publishes. Nothing here starts: the server starts the gateway once it is built.
 */
import type { Logger } from 'pino';
import { checkpointCheck } from '../audit/checkpoint.js';
import type { Channel } from '../channel/channel.js';
import type { TollgateConfig } from '../config.js';
import type { SinkConfig } from '../events/config.js';
import { EventStream } from '../events/stream.js';
import { Gateway } from '../gateway/gateway.js';
import type { ChangeFeed } from '../lifecycle/change-feed.js';
import { AwayBook } from '../people/away-book.js';
import { PeopleSource } from '../people/source.js';
import type { PolicyGate } from '../policy/gate.js';
import type { Scheduler } from '../scheduler/types.js';
import type { SigningKeys } from '../signing/keys.js';
import type { VerdictSigner } from '../signing/verdict.js';
import type { OpenStores } from '../stores/open-store.js';
import { withVerdictTokens } from '../stores/verdict-tokens.js';
import type { Clock } from '../utils/clock.js';
import type { AuditTrail } from './audit-trail.js';

/** What the gateway is built from: the configuration and what `createServer` opened and chose before it. */
export interface GatewayParts {
  config: TollgateConfig;
  stores: OpenStores;
  channels: Channel[];
  scheduler: Scheduler;
  feed: ChangeFeed;
  policy: PolicyGate;
  clock: Clock;
  logger: Logger;
  sinks: SinkConfig[];
  /** Hosts outbound posts may name although private (`TOLLGATE_OUTBOUND_ALLOW`). */
  callbackAllow: string[];
  /** The audit trail's merge delay (`TOLLGATE_AUDIT_MAX_DELAY`). */
  maxDelayMs: number;
  trail: AuditTrail;
  verdicts: VerdictSigner;
  signingKeys: SigningKeys;
}

/** Builds the people directory, the event stream and the gateway; see the module comment. */
export function gatewayFor(parts: GatewayParts): { gateway: Gateway; people: PeopleSource; events: EventStream } {
  const { config, stores, clock, logger, callbackAllow, trail, verdicts, signingKeys } = parts;
  const people = new PeopleSource(config.directory);
  // The outbox is the events table itself (written in each change's transaction); sinks follow it with a cursor.
  const events = new EventStream(parts.sinks, {
    log: stores.events,
    requests: (ids) => stores.store.getMany(ids),
    logger: logger.child({ component: 'events' }),
    source: config.publicUrl ?? 'tollgate',
    callbackAllow,
    now: () => clock.now(),
    away: stores.away,
    place: () => trail.integrator.runOnce(),
  });
  const gateway = new Gateway({
    // Final rows leave the store with their stored verdict token attached (`stores/verdict-tokens`); `server.store` stays bare.
    store: withVerdictTokens(stores.store),
    scheduler: parts.scheduler,
    feed: parts.feed,
    channels: parts.channels,
    clock,
    logger,
    allowSelfApproval: config.file.allow_self_approval ?? false,
    callbackSecret: config.callbackSecret ?? undefined,
    callbackAllow,
    stream: events,
    policy: parts.policy,
    auditChain: stores.audit,
    auditMaxDelayMs: parts.maxDelayMs,
    insights: stores.insights,
    directory: people.current,
    away: new AwayBook({
      store: stores.away,
      directory: people.current,
      clock,
      logger: logger.child({ component: 'people' }),
    }),
    defaults: {
      timeoutS: config.file.defaults?.timeout_s,
      onTimeout: config.file.defaults?.on_timeout,
      options: config.file.defaults?.options,
      channels: config.file.defaults?.channels,
    },
  });
  gateway.audit?.useSigner(verdicts.signAnchor);
  gateway.audit?.useCheckpointCheck(checkpointCheck(verdicts.keys));
  gateway.audit?.useIntegrator(() => trail.integrator.runOnce());
  gateway.audit?.useKeys(async () => ({
    keys: (await signingKeys.jwks()).keys,
    source: 'gateway',
    inDatabase: signingKeys.place === 'database',
  }));
  return { gateway, people, events };
}
