/**
 * @module gateway/jobs
 * What the gateway does when the scheduler runs a job: expire, deliver a card, update a card, call a runtime back,
 * sweep. Every job re-reads its row first, so a stale or duplicate job does nothing (it throws
 * {@link JobNotNeededError} and the scheduler does not retry it). Also start-up reconciliation. The card jobs are
 * `card-jobs.ts`, the runtime callback `callback-job.ts`.
 */
import type { Channel } from '../channel/channel.js';
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { Scheduler } from '../scheduler/types.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { JobNotNeededError, type JobAttempt, type SchedulerJobs } from '../scheduler/types.js';
import { ExpiryHorizon } from '../scheduler/expiry-horizon.js';
import { RequestTraces } from '../telemetry/tracing.js';
import { callRuntimeBack } from './callback-job.js';
import { CardJobs } from './card-jobs.js';

/** One finished job attempt, for metrics. */
export interface JobOutcome {
  job: 'deliver' | 'update' | 'callback' | 'expire';
  channel: string | null;
  ok: boolean;
}

/** What the job handlers need of the gateway: its parts and its batched expiry (so this file does not import it). */
export interface JobsDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  clock: Clock;
  logger: Logger;
  channels: ReadonlyMap<string, Channel>;
  /** Where each request's trace is, so a card's span joins it (absent: spans of their own). */
  traces?: RequestTraces;
  /** The request as its card shows it (who stands in for an absentee attached); absent: as read. */
  forCard?(request: ConfirmationRequest): Promise<ConfirmationRequest>;
  /** Expires every due request with its fan-out (waiters, cards, callbacks); returns how many. */
  expireDue(): Promise<number>;
  /** Other periodic upkeep the sweep runs after its own (the insights rollup's refresh when due); absent: none. */
  upkeep?(): Promise<unknown>;
  /** Whether a recent due-scan of this process expired `requestId` (so its timer has nothing left to read). */
  expiredRecently?(requestId: string): boolean;
  /**
   * A policy's reminders and escalation (absent: none). `run` does what is due and says when the request's timer should
   * fire next; `wake` says it for a page of pending rows at start-up, in their order.
   */
  followUps?: {
    run(request: ConfirmationRequest): Promise<Date>;
    wake(rows: readonly { id: string; expiresAt: Date }[]): Promise<Date[]>;
  };
}

/** The gateway's job handlers. */
export class GatewayJobs implements SchedulerJobs {
  private readonly listeners = new Set<(outcome: JobOutcome) => void>();
  private readonly traces: RequestTraces;
  private readonly horizon: ExpiryHorizon;
  /** Delivering and updating cards (`card-jobs.ts`). */
  private readonly cards: CardJobs;

  constructor(
    private readonly deps: JobsDeps,
    private readonly options: { callbackSecret?: string; callbackAllow?: readonly string[] },
  ) {
    this.traces = deps.traces ?? new RequestTraces();
    const wakes = deps.followUps?.wake.bind(deps.followUps);
    this.horizon = new ExpiryHorizon({
      store: deps.store,
      scheduler: deps.scheduler,
      clock: deps.clock,
      logger: deps.logger,
      ...(wakes ? { wakes } : {}),
    });
    const { store, scheduler, logger, channels, forCard } = deps;
    this.cards = new CardJobs({
      store,
      scheduler,
      logger,
      channels,
      traces: this.traces,
      ...(forCard ? { forCard } : {}),
      now: () => this.now(),
      report: (job, channel, ok) => this.report({ job, channel, ok }),
    });
  }

  /** Calls `listener` after each job attempt. */
  onOutcome(listener: (outcome: JobOutcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private report(outcome: JobOutcome) {
    for (const listener of this.listeners) listener(outcome);
  }

  private now() {
    return new Date(this.deps.clock.now());
  }

  async expire(requestId: string): Promise<void> {
    // Most timers fire when their row is due: the shared due-scan stamps it with every other due row, and the job is
    // done without reading its row (10 000 reads through a PostgreSQL pool made a second's expiries seconds late).
    const expired = await this.deps.expireDue();
    if (expired) this.report({ job: 'expire', channel: null, ok: true });
    if (this.deps.expiredRecently?.(requestId)) return;
    const request = await this.deps.store.get(requestId);
    if (!request || request.status !== 'pending') throw new JobNotNeededError(`request ${requestId} is not pending`);
    if (request.expiresAt.getTime() > this.deps.clock.now()) {
      // Fired early: a reminder or escalation step is due (the timer is the request's next wake-up), or a clock step.
      // Do what is due, then arm again for the next follow-up or the real expiry.
      const wake = this.deps.followUps ? await this.deps.followUps.run(request) : request.expiresAt;
      await this.deps.scheduler.scheduleExpiry(requestId, wake, request.expiresAt);
    }
    // Due and still pending after the scan: another replica holds the row (SKIP LOCKED) and expires it.
  }

  deliver(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    return this.cards.deliver(requestId, channelName, target, attempt);
  }

  updateCard(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    return this.cards.updateCard(requestId, channelName, target, attempt);
  }

  callback(requestId: string, attempt: JobAttempt): Promise<void> {
    const { store, clock } = this.deps;
    const report = (ok: boolean) => this.report({ job: 'callback', channel: null, ok });
    return callRuntimeBack({ store, clock, ...this.options, report }, requestId, attempt);
  }

  async dueScan(): Promise<void> {
    const expired = await this.deps.expireDue();
    // Usually the local timers were first; what is left had its timer in a process that is gone (or running late).
    if (expired) this.deps.logger.info({ expired }, 'due-scan expired overdue requests');
  }

  async sweep(): Promise<void> {
    const expired = await this.deps.expireDue();
    const requeued = await this.requeueUnsentCards();
    if (expired || requeued) this.deps.logger.info({ expired, requeued }, 'sweep caught up');
    await this.deps.upkeep?.().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'sweep upkeep failed'));
  }

  /**
   * Start-up reconciliation: pending rows past their time expire now, those due within the horizon get their expiry
   * timer (again) and the later ones get theirs as they come within it (see `expiry-horizon.ts`), and cards never sent
   * are re-enqueued.
   */
  async reconcile(): Promise<{ expired: number; scheduled: number; requeued: number }> {
    const expired = await this.deps.expireDue();
    const scheduled = await this.horizon.rearm();
    const requeued = await this.requeueUnsentCards();
    this.deps.logger.info({ expired, scheduled, requeued }, 'reconciled pending requests');
    return { expired, scheduled, requeued };
  }

  /** Whether a request filed here, its timer waking at `wake`, can wait for a pass of the horizon (see `ExpiryHorizon.defers`). */
  defers(wake: Date, expiresAt: Date): boolean {
    return this.horizon.defers(wake, expiresAt);
  }

  /** Stops arming the timers of rows coming within the horizon (the gateway is stopping). */
  stop(): void {
    this.horizon.stop();
  }

  /** After a committed change: stop the timer when final, refresh every sent card, call the runtime back. */
  async afterChange(request: ConfirmationRequest): Promise<void> {
    const final = request.status !== 'pending';
    // An expired request's timer has fired already (or, after a restart, fires at once and finds nothing to do):
    // cancelling it would cost a Redis round trip per request when thousands expire together.
    if (final && request.status !== 'expired') await this.deps.scheduler.cancelExpiry(request.id);
    // Cards that are the row itself (the web inbox) have nothing to rewrite: a request with only those skips the read.
    const rewritable = request.channels.some((c) => this.deps.channels.get(c.type)?.readsFromDatabase !== true);
    for (const card of rewritable ? await this.deps.store.messages(request.id) : []) {
      if (card.messageRef) await this.deps.scheduler.enqueueCardUpdate(request.id, card.channel, card.target);
    }
    if (final && request.callbackUrl) await this.deps.scheduler.enqueueCallback(request.id);
  }

  private async requeueUnsentCards(): Promise<number> {
    const unsent = await this.deps.store.unsentMessages(10_000);
    for (const card of unsent) await this.deps.scheduler.enqueueDelivery(card.requestId, card.channel, card.target);
    return unsent.length;
  }
}
