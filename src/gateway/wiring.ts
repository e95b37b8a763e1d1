/**
 * @module gateway/wiring
 * How a {@link Gateway}'s parts are built from its options: filing (`file.ts`), decisions (`decide.ts`), the long-poll's
 * wait, the change fan-out (`changes.ts`), the due-scan, the job handlers (`jobs.ts`) with a policy's follow-ups, and
 * the services the gateway offers beside requests (grant admin, insights). The parts call back into the gateway
 * through {@link GatewayCallbacks}, so this file does not import it.
 */
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import { Insights } from '../insights/service.js';
import type { ChangeFeed, RequestChange } from '../lifecycle/change-feed.js';
import { ExpiryScan } from '../lifecycle/expiry-scan.js';
import type { WaitDeps } from '../lifecycle/verdict-wait.js';
import type { Waiters } from '../lifecycle/waiters.js';
import type { AwayBook } from '../people/away-book.js';
import type { Directory } from '../people/types.js';
import type { PolicyGate } from '../policy/gate.js';
import { GrantAdmin } from '../policy/grant-admin.js';
import type { GatewayDefaults } from '../requests/new-request.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationRequest, NewEvent } from '../requests/types.js';
import type { Scheduler } from '../scheduler/types.js';
import { traceExpiry } from '../telemetry/request-spans.js';
import type { RequestTraces } from '../telemetry/tracing.js';
import type { Clock } from '../utils/clock.js';
import { ChangeFanOut } from './changes.js';
import type { DecisionDeps } from './decide.js';
import type { FilingDeps } from './file.js';
import { GatewayJobs } from './jobs.js';
import type { GatewayOptions } from './options.js';
import { runDueFollowUps, wakesOf, type FollowUpDeps } from './run-follow-ups.js';

/** What the parts share: the gateway's own fields, as its constructor has set them. */
export interface GatewayBase {
  store: ConfirmationStore;
  scheduler: Scheduler;
  feed: ChangeFeed;
  clock: Clock;
  logger: Logger;
  channels: ReadonlyMap<string, Channel>;
  directory: () => Directory;
  away: AwayBook;
  policy: PolicyGate | null;
  defaults: GatewayDefaults;
  allowSelfApproval: boolean;
  callbackAllow: string[];
  waiters: Waiters;
  traces: RequestTraces;
}

/** What the parts call back into: the gateway's reads, its due-scan and its fan-out. */
export interface GatewayCallbacks {
  note: (id: string, event: NewEvent) => Promise<void>;
  mustGet: (id: string) => Promise<ConfirmationRequest>;
  withStandIns: (request: ConfirmationRequest) => Promise<ConfirmationRequest>;
  expireDue: () => Promise<number>;
  changed: (request: ConfirmationRequest, kind: RequestChange['kind']) => Promise<void>;
  /** Whether the gateway is stopping (waiters then answer as they are). */
  stopping: () => boolean;
}

/** The parts a {@link Gateway} runs on. */
export interface GatewayParts {
  grantAdmin: GrantAdmin | null;
  insights: Insights | null;
  filing: FilingDeps;
  decisions: DecisionDeps;
  waits: WaitDeps;
  changes: ChangeFanOut;
  expiryScan: ExpiryScan;
  jobs: GatewayJobs;
}

/** Builds the parts; see the module comment. */
export function wireGateway(base: GatewayBase, gateway: GatewayCallbacks, options: GatewayOptions): GatewayParts {
  const { store, scheduler, clock, logger, channels, policy } = base;
  const now = () => new Date(clock.now());
  const grantAdmin = policy?.grants ? new GrantAdmin(policy.grants, gateway.note, () => clock.now()) : null;
  const insights = options.insights
    ? new Insights({
        store: options.insights,
        directory: base.directory,
        now: () => clock.now(),
        denied: async (toolName, since, until) =>
          (await store.list({ status: 'denied', toolName, since, until, limit: 100 })).items,
        request: (id) => store.get(id),
        policy: () => policy?.policy ?? null,
        grants: policy?.grants ?? null,
        note: gateway.note,
      })
    : null;
  const followUps: FollowUpDeps = {
    store,
    scheduler,
    channels,
    logger,
    directory: options.directory,
    delegations: () => base.away.delegations(),
    // Waiters and live pages re-read the row; no card update or callback job (the runner enqueues what it needs).
    publish: (r) =>
      base.feed
        .publish({ requestId: r.id, status: r.status, kind: 'changed' })
        .catch((error: unknown) => logger.warn({ err: error }, 'change feed publish failed')),
  };
  const expiryScan = new ExpiryScan({
    store,
    clock,
    logger,
    fanOut: (r) => traceExpiry(base.traces, r, () => gateway.changed(r, 'changed')),
  });
  const jobs = new GatewayJobs(
    {
      store,
      scheduler,
      clock,
      logger,
      channels,
      traces: base.traces,
      forCard: gateway.withStandIns,
      expireDue: gateway.expireDue,
      expiredRecently: (id) => expiryScan.expiredRecently(id),
      ...(insights ? { upkeep: () => insights.rollup.refreshWhenDue() } : {}),
      ...(policy
        ? { followUps: { run: (r) => runDueFollowUps(followUps, r, now()), wake: (rows) => wakesOf(followUps, rows) } }
        : {}),
    },
    { callbackSecret: options.callbackSecret, callbackAllow: base.callbackAllow },
  );
  return {
    grantAdmin,
    insights,
    expiryScan,
    jobs,
    waits: { waiters: base.waiters, clock, read: gateway.mustGet, stopping: gateway.stopping },
    changes: new ChangeFanOut({
      logger,
      feed: base.feed,
      waiters: base.waiters,
      traces: base.traces,
      afterChange: (r) => jobs.afterChange(r),
    }),
    decisions: {
      store,
      clock,
      logger,
      policy,
      allowSelfApproval: base.allowSelfApproval,
      directory: base.directory,
      delegations: () => base.away.delegations(),
      changed: (r) => gateway.changed(r, 'changed'),
    },
    filing: {
      store,
      scheduler,
      clock,
      channels,
      defaults: base.defaults,
      policy,
      callbackAllow: base.callbackAllow,
      directory: base.directory,
      delegations: () => base.away.delegations(false),
      traces: base.traces,
      created: (r) => gateway.changed(r, 'created'),
      defers: (wake, expiresAt) => jobs.defers(wake, expiresAt),
    },
  };
}
