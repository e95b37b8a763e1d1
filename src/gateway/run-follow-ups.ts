/**
 * @module gateway/run-follow-ups
 * Runs a pending request's due reminders and escalation steps (see `follow-ups.ts` for the plan and the timer).
 * A reminder records `reminded` and refreshes every sent card (a channel with a `remind` hook also re-notifies);
 * an escalation step adds its approvers and channels to the row with `escalated` in one transaction, posts cards to
 * the new channels and refreshes the old ones, which then show who may decide now. A step skips an approver who is
 * away with nobody standing in for them (the event names them); a step left with nobody to add runs the next step at
 * once, rather than waiting for someone who cannot answer. Whoever stands in for an approver it adds gets the card.
 */
import { NO_DELEGATIONS, shortDate, type Delegations } from '../people/away.js';
import { delegateTargets, directTargets } from '../people/targets.js';
import { NO_DIRECTORY } from '../people/no-directory.js';
import type { Directory } from '../people/types.js';
import type { Logger } from 'pino';
import type { Channel } from '../channel/channel.js';
import { resolveCards } from '../channel/cards.js';
import type { ConfirmationStore } from '../requests/store.js';
import { eventsByRequest, type ChannelTarget, type ConfirmationRequest } from '../requests/types.js';
import type { Scheduler } from '../scheduler/types.js';
import { nextWake, outstanding, recordedPlan, type FollowUp } from '../policy/follow-ups.js';

/** What running follow-ups needs of the gateway. */
export interface FollowUpDeps {
  store: ConfirmationStore;
  scheduler: Scheduler;
  channels: ReadonlyMap<string, Channel>;
  logger: Logger;
  /** The people directory in force: an escalation step naming people with no channels messages them directly. */
  directory?: () => Directory;
  /** The delegations in force (absent: nobody is away). */
  delegations?: () => Promise<Delegations>;
  /** Tells waiters and live pages that the row changed (the gateway's change fan-out, without card updates). */
  publish(request: ConfirmationRequest): Promise<void>;
}

/** Runs the follow-ups of `request` due at `now`; returns when its timer should fire next. */
export async function runDueFollowUps(deps: FollowUpDeps, request: ConfirmationRequest, now: Date): Promise<Date> {
  const events = await deps.store.events(request.id);
  let current = request;
  // Set when an escalation step found only approvers away with nobody standing in: the next step is due at once.
  let skipAhead = false;
  for (const followUp of outstanding(recordedPlan(events), events)) {
    if (Date.parse(followUp.at) > now.getTime() && !(skipAhead && followUp.kind === 'escalate')) {
      if (skipAhead) continue;
      break;
    }
    if (followUp.kind === 'remind') await remind(deps, current, followUp.step, now);
    else {
      const escalated = await escalate(deps, current, followUp, now);
      current = escalated.request ?? current;
      skipAhead = escalated.nobodyAdded;
    }
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
  await deps.store.appendEvent(request.id, {
    type: 'reminded',
    actor: 'system',
    channel: null,
    detail: { step, approvers: request.approvers },
    at: now,
  });
  for (const card of await deps.store.messages(request.id)) {
    if (!card.messageRef) continue;
    const channel = deps.channels.get(card.channel);
    if (channel?.remind)
      await channel
        .remind(request, { target: card.target, messageRef: card.messageRef })
        .catch((error: unknown) => deps.logger.warn({ err: error, requestId: request.id }, 'reminder not sent'));
    else await deps.scheduler.enqueueCardUpdate(request.id, card.channel, card.target);
  }
  await deps.publish(request);
}

async function escalate(
  deps: FollowUpDeps,
  request: ConfirmationRequest,
  step: Extract<FollowUp, { kind: 'escalate' }>,
  now: Date,
): Promise<{ request: ConfirmationRequest | null; nobodyAdded: boolean }> {
  const directory = deps.directory?.() ?? NO_DIRECTORY;
  const delegations = deps.delegations ? await deps.delegations() : NO_DELEGATIONS;
  const { kept, skipped } = skipUnattended(directory, step.approvers, delegations);
  const approvers = [...new Set([...request.approvers, ...kept])];
  const key = (c: ChannelTarget) => `${c.type}\u0000${c.target ?? ''}`;
  const known = new Set(request.channels.map(key));
  let added: ChannelTarget[] = [];
  try {
    const direct = step.channels.length === 0 && deps.directory ? directTargets(directory, kept, deps.channels) : [];
    added = resolveCards(
      [...step.channels, ...direct, ...delegateTargets(directory, kept, deps.channels, delegations)],
      deps.channels,
    ).filter((c) => !known.has(key(c)));
  } catch (error) {
    deps.logger.warn(
      { err: error, requestId: request.id, step: step.step },
      'escalation names a channel this gateway cannot post to; adding approvers only',
    );
  }
  const channels = [...request.channels, ...added.map((c) => (c.target ? c : { type: c.type }))];
  const detail = {
    step: step.step,
    added_approvers: kept,
    added_channels: added,
    approvers,
    ...(skipped.length ? { skipped } : {}),
  };
  const updated = await deps.store.escalate(
    request.id,
    step.step,
    { approvers, channels },
    { type: 'escalated', actor: 'system', channel: null, detail, at: now },
  );
  const nobodyAdded = skipped.length > 0 && kept.length === 0 && step.channels.length === 0;
  if (!updated) return { request: null, nobodyAdded };
  for (const card of added) {
    await deps.store.ensureMessage(request.id, card.type, card.target ?? '', now);
    if (deps.channels.get(card.type)?.readsFromDatabase)
      await deps.store.updateMessage(request.id, card.type, card.target ?? '', { status: 'sent' }, now);
    else await deps.scheduler.enqueueDelivery(request.id, card.type, card.target ?? '');
  }
  for (const card of await deps.store.messages(request.id)) {
    if (card.messageRef) await deps.scheduler.enqueueCardUpdate(request.id, card.channel, card.target);
  }
  await deps.publish(updated);
  return { request: updated, nobodyAdded };
}

/**
 * The step's approvers without those away with nobody standing in (a person, every member of a group, the person
 * behind an account), and those skipped with why, for the `escalated` event.
 */
function skipUnattended(
  directory: Directory,
  approvers: readonly string[],
  delegations: Delegations,
): { kept: string[]; skipped: { approver: string; reason: string }[] } {
  const kept: string[] = [];
  const skipped: { approver: string; reason: string }[] = [];
  for (const approver of approvers) {
    const ref = directory.reference(approver);
    const people =
      ref?.kind === 'person'
        ? [ref.id]
        : ref?.kind === 'group'
          ? (directory.group(ref.id)?.people ?? [])
          : ref?.kind === 'account'
            ? [directory.personOf(ref.account)]
            : [];
    const away = people.length > 0 && people.every((p) => delegations.unattended(p));
    if (!away) kept.push(approver);
    else
      skipped.push({
        approver,
        reason: `${people.map((p) => `${p} is away until ${shortDate(delegations.awayOf(p)!.until, delegations.now)}`).join(', ')}, with nobody standing in`,
      });
  }
  return { kept, skipped };
}
