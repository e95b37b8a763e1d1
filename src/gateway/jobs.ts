/**
 * @module gateway/jobs
 * What the gateway does when the scheduler runs a job: expire, deliver a card, update a card, call a runtime back,
 * sweep. Every job re-reads its row first, so a stale or duplicate job does nothing (it throws
 * {@link JobNotNeededError} and the scheduler does not retry it). Also start-up reconciliation.
 */
import { postOutbound } from '../utils/outbound.js';
import { createHmac } from 'node:crypto';
import { PermanentChannelError, RateLimitedError, type Channel } from '../channel/channel.js';
import type { Logger } from 'pino';
import type { Clock } from '../utils/clock.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { Scheduler } from '../scheduler/types.js';
import { toApiRequest } from '../requests/serialize.js';
import type { ConfirmationRequest } from '../requests/types.js';
import {
  JobFailedPermanentlyError,
  JobNotNeededError,
  RetryLaterError,
  type JobAttempt,
  type SchedulerJobs,
} from '../scheduler/types.js';
import { describeError } from '../api/errors.js';
import { ExpiryHorizon } from '../scheduler/expiry-horizon.js';
import { traceCard } from '../telemetry/request-spans.js';
import { RequestTraces } from '../telemetry/tracing.js';

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

  async deliver(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    const request = await this.deps.store.get(requestId);
    if (!request) throw new JobNotNeededError(`request ${requestId} is gone`);
    const card = (await this.deps.store.messages(requestId)).find(
      (m) => m.channel === channelName && m.target === target,
    );
    if (card && card.status !== 'pending')
      throw new JobNotNeededError(`card ${channelName}:${target} of ${requestId} was already sent`);
    if (request.status !== 'pending')
      throw new JobNotNeededError(`request ${requestId} is ${request.status}; card not sent`);
    const channel = this.channel(channelName);
    try {
      const card = { requestId, channel: channelName, target, attempt: attempt.attempt };
      const shown = this.deps.forCard ? await this.deps.forCard(request) : request;
      const messageRef = await traceCard(this.traces, 'deliver', card, () => channel.send(shown, target));
      await this.deps.store.updateMessage(
        requestId,
        channelName,
        target,
        { messageRef, status: 'sent', attempts: attempt.attempt, lastError: null },
        this.now(),
      );
      await this.deps.store.appendEvent(requestId, {
        type: 'delivered',
        actor: null,
        channel: channelName,
        detail: { target, message_ref: messageRef, attempt: attempt.attempt },
        at: this.now(),
      });
      this.report({ job: 'deliver', channel: channelName, ok: true });
      // Decided while the card was on its way: bring the new card up to date.
      const latest = await this.deps.store.get(requestId);
      if (latest && latest.status !== 'pending' && messageRef)
        await this.deps.scheduler.enqueueCardUpdate(requestId, channelName, target);
    } catch (error) {
      const givesUp = attempt.isLastAttempt || error instanceof PermanentChannelError;
      await this.deps.store.updateMessage(
        requestId,
        channelName,
        target,
        { attempts: attempt.attempt, lastError: describeError(error), status: givesUp ? 'failed' : 'pending' },
        this.now(),
      );
      await this.deps.store.appendEvent(requestId, {
        type: 'delivery_failed',
        actor: null,
        channel: channelName,
        detail: { target, attempt: attempt.attempt, error: describeError(error), will_retry: !givesUp },
        at: this.now(),
      });
      this.report({ job: 'deliver', channel: channelName, ok: false });
      this.deps.logger.warn(
        { requestId, channel: channelName, target, attempt: attempt.attempt, err: describeError(error) },
        'card delivery failed',
      );
      throw asJobError(error);
    }
  }

  async updateCard(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    const request = await this.deps.store.get(requestId);
    const card = (await this.deps.store.messages(requestId)).find(
      (m) => m.channel === channelName && m.target === target,
    );
    if (!request || !card?.messageRef)
      throw new JobNotNeededError(`card ${channelName}:${target} of ${requestId} has nothing to update`);
    try {
      const channel = this.channel(channelName);
      const ref = { target, messageRef: card.messageRef };
      const shown = this.deps.forCard ? await this.deps.forCard(request) : request;
      await traceCard(
        this.traces,
        'update',
        { requestId, channel: channelName, target, attempt: attempt.attempt },
        () => channel.update(shown, ref),
      );
      if (request.status !== 'pending')
        await this.deps.store.updateMessage(
          requestId,
          channelName,
          target,
          { status: 'updated', lastError: null },
          this.now(),
        );
      this.report({ job: 'update', channel: channelName, ok: true });
    } catch (error) {
      const givesUp = attempt.isLastAttempt || error instanceof PermanentChannelError;
      await this.deps.store.updateMessage(
        requestId,
        channelName,
        target,
        { lastError: describeError(error) },
        this.now(),
      );
      await this.deps.store.appendEvent(requestId, {
        type: 'update_failed',
        actor: null,
        channel: channelName,
        detail: { target, attempt: attempt.attempt, error: describeError(error), will_retry: !givesUp },
        at: this.now(),
      });
      this.report({ job: 'update', channel: channelName, ok: false });
      throw asJobError(error);
    }
  }

  async callback(requestId: string, attempt: JobAttempt): Promise<void> {
    const request = await this.deps.store.get(requestId);
    if (!request?.callbackUrl) throw new JobNotNeededError(`request ${requestId} has no callback_url`);
    const body = JSON.stringify({ type: 'confirmation.decided', request: toApiRequest(request) });
    const timestamp = Math.floor(this.deps.clock.now() / 1000).toString();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-tollgate-timestamp': timestamp,
      'x-tollgate-request-id': requestId,
    };
    if (this.options.callbackSecret)
      headers['x-tollgate-signature'] = signCallback(this.options.callbackSecret, timestamp, body);
    let error: string | null = null;
    let status: number | null = null;
    try {
      // Checked against the address actually connected to; a signed webhook is never re-posted elsewhere: a redirect
      // is a failure, not a new target.
      status = await postOutbound(request.callbackUrl, { headers, body }, this.options.callbackAllow ?? []);
      if (status >= 300 && status < 400) error = `HTTP ${status}: redirects are not followed`;
      else if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (e) {
      error = describeError(e);
    }
    const at = this.now();
    if (error === null) {
      await this.deps.store.appendEvent(requestId, {
        type: 'callback_sent',
        actor: null,
        channel: null,
        detail: { status, attempt: attempt.attempt },
        at,
      });
      this.report({ job: 'callback', channel: null, ok: true });
      return;
    }
    await this.deps.store.appendEvent(requestId, {
      type: 'callback_failed',
      actor: null,
      channel: null,
      detail: { status, error, attempt: attempt.attempt, will_retry: !attempt.isLastAttempt },
      at,
    });
    this.report({ job: 'callback', channel: null, ok: false });
    throw new Error(`callback to runtime failed: ${error}`);
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

  private channel(name: string): Channel {
    const channel = this.deps.channels.get(name);
    if (!channel) throw new JobFailedPermanentlyError(`channel "${name}" is not enabled on this gateway`);
    return channel;
  }
}

/**
 * The signature of a runtime callback: `v1=` + hex HMAC-SHA256(secret, `${timestamp}.${body}`), sent as
 * `X-Tollgate-Signature` with `X-Tollgate-Timestamp`.
 */
export function signCallback(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Maps channel errors to the scheduler's control-flow errors. */
function asJobError(error: unknown): Error {
  if (error instanceof PermanentChannelError) return new JobFailedPermanentlyError(error.message);
  if (error instanceof RateLimitedError) return new RetryLaterError(error.message, error.retryAfterMs);
  return error instanceof Error ? error : new Error(String(error));
}
