/**
 * @module gateway/card-jobs
 * The scheduler's card jobs (`jobs.ts` hands them here): send a request's card to one channel target, and bring a
 * sent card up to date once the request changed. Each re-reads its row and card first, so a stale or duplicate job
 * does nothing ({@link JobNotNeededError}); a channel's errors become the scheduler's control-flow errors.
 */
import type { Logger } from 'pino';
import { describeError } from '../api/errors.js';
import { PermanentChannelError, RateLimitedError, type Channel } from '../channel/channel.js';
import type { ConfirmationStore } from '../requests/store.js';
import type { ConfirmationRequest } from '../requests/types.js';
import {
  JobFailedPermanentlyError,
  JobNotNeededError,
  RetryLaterError,
  type JobAttempt,
  type Scheduler,
} from '../scheduler/types.js';
import { traceCard } from '../telemetry/request-spans.js';
import type { RequestTraces } from '../telemetry/tracing.js';

/** What the card jobs need: the gateway's parts, and where each attempt's outcome goes (metrics). */
export interface CardJobDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  logger: Logger;
  channels: ReadonlyMap<string, Channel>;
  traces: RequestTraces;
  /** The request as its card shows it (who stands in for an absentee attached); absent: as read. */
  forCard?(request: ConfirmationRequest): Promise<ConfirmationRequest>;
  now(): Date;
  report(job: 'deliver' | 'update', channel: string, ok: boolean): void;
}

/** The card jobs' handlers. */
export class CardJobs {
  constructor(private readonly deps: CardJobDeps) {}

  /** Sends the card of `requestId` to `target` on `channelName`, once. */
  async deliver(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    const { store, scheduler } = this.deps;
    const request = await store.get(requestId);
    if (!request) throw new JobNotNeededError(`request ${requestId} is gone`);
    const card = (await store.messages(requestId)).find((m) => m.channel === channelName && m.target === target);
    if (card && card.status !== 'pending')
      throw new JobNotNeededError(`card ${channelName}:${target} of ${requestId} was already sent`);
    if (request.status !== 'pending')
      throw new JobNotNeededError(`request ${requestId} is ${request.status}; card not sent`);
    const channel = this.channel(channelName);
    try {
      const card = { requestId, channel: channelName, target, attempt: attempt.attempt };
      const shown = this.deps.forCard ? await this.deps.forCard(request) : request;
      const messageRef = await traceCard(this.deps.traces, 'deliver', card, () => channel.send(shown, target));
      await store.updateMessage(
        requestId,
        channelName,
        target,
        { messageRef, status: 'sent', attempts: attempt.attempt, lastError: null },
        this.deps.now(),
      );
      await store.appendEvent(requestId, {
        type: 'delivered',
        actor: null,
        channel: channelName,
        detail: { target, message_ref: messageRef, attempt: attempt.attempt },
        at: this.deps.now(),
      });
      this.deps.report('deliver', channelName, true);
      // Decided while the card was on its way: bring the new card up to date.
      const latest = await store.get(requestId);
      if (latest && latest.status !== 'pending' && messageRef)
        await scheduler.enqueueCardUpdate(requestId, channelName, target);
    } catch (error) {
      const givesUp = attempt.isLastAttempt || error instanceof PermanentChannelError;
      await store.updateMessage(
        requestId,
        channelName,
        target,
        { attempts: attempt.attempt, lastError: describeError(error), status: givesUp ? 'failed' : 'pending' },
        this.deps.now(),
      );
      await this.failed('delivery_failed', requestId, channelName, target, attempt, error, givesUp);
      this.deps.report('deliver', channelName, false);
      this.deps.logger.warn(
        { requestId, channel: channelName, target, attempt: attempt.attempt, err: describeError(error) },
        'card delivery failed',
      );
      throw asJobError(error);
    }
  }

  /** Rewrites the sent card of `requestId` at `target` to show the request as it is now. */
  async updateCard(requestId: string, channelName: string, target: string, attempt: JobAttempt): Promise<void> {
    const { store } = this.deps;
    const request = await store.get(requestId);
    const card = (await store.messages(requestId)).find((m) => m.channel === channelName && m.target === target);
    if (!request || !card?.messageRef)
      throw new JobNotNeededError(`card ${channelName}:${target} of ${requestId} has nothing to update`);
    try {
      const channel = this.channel(channelName);
      const ref = { target, messageRef: card.messageRef };
      const shown = this.deps.forCard ? await this.deps.forCard(request) : request;
      await traceCard(
        this.deps.traces,
        'update',
        { requestId, channel: channelName, target, attempt: attempt.attempt },
        () => channel.update(shown, ref),
      );
      if (request.status !== 'pending')
        await store.updateMessage(
          requestId,
          channelName,
          target,
          { status: 'updated', lastError: null },
          this.deps.now(),
        );
      this.deps.report('update', channelName, true);
    } catch (error) {
      const givesUp = attempt.isLastAttempt || error instanceof PermanentChannelError;
      await store.updateMessage(requestId, channelName, target, { lastError: describeError(error) }, this.deps.now());
      await this.failed('update_failed', requestId, channelName, target, attempt, error, givesUp);
      this.deps.report('update', channelName, false);
      throw asJobError(error);
    }
  }

  /** Records a failed attempt, and whether the scheduler tries again. */
  private failed(
    type: 'delivery_failed' | 'update_failed',
    requestId: string,
    channel: string,
    target: string,
    attempt: JobAttempt,
    error: unknown,
    givesUp: boolean,
  ): Promise<void> {
    return this.deps.store.appendEvent(requestId, {
      type,
      actor: null,
      channel,
      detail: { target, attempt: attempt.attempt, error: describeError(error), will_retry: !givesUp },
      at: this.deps.now(),
    });
  }

  private channel(name: string): Channel {
    const channel = this.deps.channels.get(name);
    if (!channel) throw new JobFailedPermanentlyError(`channel "${name}" is not enabled on this gateway`);
    return channel;
  }
}

/** Maps channel errors to the scheduler's control-flow errors. */
function asJobError(error: unknown): Error {
  if (error instanceof PermanentChannelError) return new JobFailedPermanentlyError(error.message);
  if (error instanceof RateLimitedError) return new RetryLaterError(error.message, error.retryAfterMs);
  return error instanceof Error ? error : new Error(String(error));
}
