/**
 * @module policy/run-follow-ups
 * Runs a pending request's due reminders and escalation steps (see `follow-ups.ts` for the plan and the timer).
 * A reminder records `reminded` and refreshes every sent card (a channel with a `remind` hook also re-notifies);
 * an escalation step adds its approvers and channels to the row with `escalated` in one transaction, posts cards to
 * the new channels and refreshes the old ones, which then show who may decide now.
 */
import { directTargets } from '../people/targets.js';
import type { Directory } from '../people/types.js';
import type { Logger } from 'pino';
import type { Channel } from '../channel.js';
import { resolveCards } from '../requests/cards.js';
import type { ConfirmationStore } from '../requests/store.js';
import { eventsByRequest, type ChannelTarget, type ConfirmationRequest } from '../requests/types.js';
import type { Scheduler } from '../scheduler/types.js';
import { nextWake, outstanding, recordedPlan, type FollowUp } from './follow-ups.js';

/** What running follow-ups needs of the gateway. */
export interface FollowUpDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  channels: ReadonlyMap<string, Channel>;
  logger: Logger;
  /** The people directory in force: an escalation step naming people with no channels messages them directly. */
  directory?: () => Directory;
  /** Tells waiters and live pages that the row changed (the gateway's change fan-out, without card updates). */
  publish(request: ConfirmationRequest): Promise<void>;
}

/** Runs the follow-ups of `request` due at `now`; returns when its timer should fire next. */
export async function runDueFollowUps(deps: FollowUpDeps, request: ConfirmationRequest, now: Date): Promise<Date> {
  const events = await deps.store.events(request.id);
  let current = request;
  for (const followUp of outstanding(recordedPlan(events), events)) {
    if (Date.parse(followUp.at) > now.getTime()) break;
    if (followUp.kind === 'remind') await remind(deps, current, followUp.step, now);
    else current = (await escalate(deps, current, followUp, now)) ?? current;
  }
  const after = await deps.store.events(request.id);
  return nextWake(outstanding(recordedPlan(after), after), request.expiresAt);
}

/** When the timers of pending requests should fire (start-up reconciliation, a page of rows per call: one read). */
export async function wakesOf(deps: FollowUpDeps, rows: readonly { id: string; expiresAt: Date }[]): Promise<Date[]> {
  const byRequest = eventsByRequest(await deps.store.eventsOf(rows.map((r) => r.id)));
  return rows.map((row) => {
    const events = byRequest.get(row.id) ?? [];
    return nextWake(outstanding(recordedPlan(events), events), row.expiresAt);
  });
}

async function remind(deps: FollowUpDeps, request: ConfirmationRequest, step: number, now: Date): Promise<void> {
  await deps.store.appendEvent(request.id, { type: 'reminded', actor: 'system', channel: null, detail: { step, approvers: request.approvers }, at: now });
  for (const card of await deps.store.messages(request.id)) {
    if (!card.messageRef) continue;
    const channel = deps.channels.get(card.channel);
    if (channel?.remind) await channel.remind(request, { target: card.target, messageRef: card.messageRef }).catch((error: unknown) => deps.logger.warn({ err: error, requestId: request.id }, 'reminder not sent'));
    else await deps.scheduler.enqueueCardUpdate(request.id, card.channel, card.target);
  }
  await deps.publish(request);
}

async function escalate(deps: FollowUpDeps, request: ConfirmationRequest, step: Extract<FollowUp, { kind: 'escalate' }>, now: Date): Promise<ConfirmationRequest | null> {
  const approvers = [...new Set([...request.approvers, ...step.approvers])];
  const key = (c: ChannelTarget) => `${c.type}\u0000${c.target ?? ''}`;
  const known = new Set(request.channels.map(key));
  let added: ChannelTarget[] = [];
  try {
    const direct = step.channels.length === 0 && deps.directory ? directTargets(deps.directory(), step.approvers, deps.channels) : [];
    added = resolveCards([...step.channels, ...direct], deps.channels).filter((c) => !known.has(key(c)));
  } catch (error) {
    deps.logger.warn({ err: error, requestId: request.id, step: step.step }, 'escalation names a channel this gateway cannot post to; adding approvers only');
  }
  const channels = [...request.channels, ...added.map((c) => (c.target ? c : { type: c.type }))];
  const event = { type: 'escalated' as const, actor: 'system', channel: null, detail: { step: step.step, added_approvers: step.approvers, added_channels: added, approvers }, at: now };
  const updated = await deps.store.escalate(request.id, step.step, { approvers, channels }, event);
  if (!updated) return null;
  for (const card of added) {
    await deps.store.ensureMessage(request.id, card.type, card.target ?? '', now);
    if (deps.channels.get(card.type)?.readsFromDatabase) await deps.store.updateMessage(request.id, card.type, card.target ?? '', { status: 'sent' }, now);
    else await deps.scheduler.enqueueDelivery(request.id, card.type, card.target ?? '');
  }
  for (const card of await deps.store.messages(request.id)) {
    if (card.messageRef) await deps.scheduler.enqueueCardUpdate(request.id, card.channel, card.target);
  }
  await deps.publish(updated);
  return updated;
}
