/**
 * @module gateway/changes
 * What follows every change the gateway commits: this process's observers (metrics, logs), its waiters, the change
 * feed (waiters in other processes), and the card-update and callback jobs (`GatewayJobs.afterChange`).
 */
import type { Logger } from 'pino';
import type { ChangeFeed, RequestChange } from '../lifecycle/change-feed.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { traceWake } from '../telemetry/request-spans.js';
import type { RequestTraces } from '../telemetry/tracing.js';
import type { Waiters } from '../lifecycle/waiters.js';

/** Something that watches state changes in this process (metrics, logs). Errors it throws are logged and ignored. */
export type GatewayObserver = (request: ConfirmationRequest, change: RequestChange['kind']) => void;

/** What the fan-out reaches: the gateway's parts, and its jobs' follow-up (so this file does not import them). */
export interface ChangeFanOutDeps {
  logger: Logger;
  feed: ChangeFeed;
  waiters: Waiters;
  traces: RequestTraces;
  /** Refreshes cards and calls back after a change (not after a create). */
  afterChange(request: ConfirmationRequest): Promise<void>;
}

/** Tells everyone who cares about a committed change; see the module comment. */
export class ChangeFanOut {
  private readonly observers = new Set<GatewayObserver>();

  constructor(private readonly deps: ChangeFanOutDeps) {}

  /** Calls `observer` with every request that changes in this process. Returns the unsubscribe function. */
  observe(observer: GatewayObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** After every committed change: tell waiters everywhere, stop the timer, refresh cards, call back. */
  async changed(request: ConfirmationRequest, kind: RequestChange['kind']): Promise<void> {
    const { logger, feed, waiters, traces } = this.deps;
    for (const observer of this.observers) {
      try {
        observer(request, kind);
      } catch (error) {
        logger.error({ err: error }, 'gateway observer failed');
      }
    }
    // A final row never changes status again: waiters here answer with it, without reading it back (10 000 expiring
    // at once were 10 000 reads). The feed still wakes waiters in other processes, and any that came since.
    if (request.status !== 'pending') traceWake(traces, request.id, waiters.wake(request.id, request));
    // Not awaited: the row is committed, which is all the caller's answer stands on; waiting for Redis to echo the
    // wake-up to other processes would only add its round trip to every create and decision (the feed flushes what
    // is in flight when it closes).
    void feed.publish({ requestId: request.id, status: request.status, kind }).catch((error: unknown) => {
      logger.error(
        { err: error, requestId: request.id },
        'change feed publish failed; waiters elsewhere will see it on their next read',
      );
    });
    if (kind === 'changed') await this.deps.afterChange(request);
  }
}
