/**
 * @module policy/follow-ups
 * Reminders and escalation of a pending request. The plan (absolute times) is written into the `created` event when
 * the request is filed, so a policy reload never changes what an open request was promised. The request's one timer
 * (the scheduler's expiry job) is armed for its next wake-up: the earliest follow-up still to do, else `expires_at`.
 * When it fires early, the due follow-ups run and the timer is re-armed; each follow-up is recorded with its step, so
 * running one twice (a retried job, a restart) does nothing the second time.
 */
import type { ChannelTarget, ConfirmationEvent } from '../requests/types.js';
import type { DefaultRule, PolicyRule } from './types.js';

/** One planned follow-up. */
export type FollowUp =
  | { kind: 'remind'; step: number; at: string }
  | { kind: 'escalate'; step: number; at: string; approvers: string[]; channels: ChannelTarget[] };

/** The follow-ups `rule` plans for a request filed at `filedAt`, earliest first (those past its expiry never run). */
export function planFollowUps(rule: PolicyRule | DefaultRule, filedAt: Date): FollowUp[] {
  const at = (s: number) => new Date(filedAt.getTime() + s * 1000);
  const plan: FollowUp[] = [];
  if (rule.remind_after_s !== undefined)
    plan.push({ kind: 'remind', step: 0, at: at(rule.remind_after_s).toISOString() });
  (rule.escalate ?? []).forEach((step, i) => {
    plan.push({
      kind: 'escalate',
      step: i,
      at: at(step.after_s).toISOString(),
      approvers: step.approvers ?? [],
      channels: step.channels ?? [],
    });
  });
  return plan.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** The plan recorded in a request's `created` event (empty when none). */
export function recordedPlan(events: readonly ConfirmationEvent[]): FollowUp[] {
  const policy = events.find((e) => e.type === 'created')?.detail.policy as { follow_ups?: FollowUp[] } | undefined;
  return Array.isArray(policy?.follow_ups) ? policy.follow_ups : [];
}

/** The follow-ups of `plan` not yet recorded in `events`. */
export function outstanding(plan: readonly FollowUp[], events: readonly ConfirmationEvent[]): FollowUp[] {
  const done = new Set(
    events
      .filter((e) => e.type === 'reminded' || e.type === 'escalated')
      .map((e) => `${e.type === 'reminded' ? 'remind' : 'escalate'}:${String(e.detail.step)}`),
  );
  return plan.filter((f) => !done.has(`${f.kind}:${f.step}`));
}

/** When the request's timer should fire next: its earliest outstanding follow-up, else its expiry. */
export function nextWake(plan: readonly FollowUp[], expiresAt: Date): Date {
  const first = plan.map((f) => Date.parse(f.at)).find((t) => t < expiresAt.getTime());
  return first === undefined ? expiresAt : new Date(Math.min(first, expiresAt.getTime()));
}
