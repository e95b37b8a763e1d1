/**
 * @module channels/email/used-links
 * Spending links. The Approve and Deny links of one mail are spent together: one recipient decides a request once by
 * mail (an approver who approved cannot deny the same request later from the same mail, which would overturn a
 * quorum they helped reach). Two records make that hold:
 * - a shared mark (`email_link`, PostgreSQL's `shared_marks` on replicas; this process's memory otherwise), taken
 *   atomically, so two posts of the same link at once decide once;
 * - the request's audit events: a decision (or refusal) by `email:<address>` through email means the link was used,
 *   which survives restarts even where marks live in memory (SQLite).
 */
import type { ConfirmationEvent } from '../../src/requests/types.js';
import type { SharedMarks } from '../../src/contracts/shared-marks.js';

const DECISION_TYPES = new Set<ConfirmationEvent['type']>(['approved', 'denied', 'decision_rejected']);

/** Whether the audit events show `account` already deciding (or being refused) through the email channel. */
export function actedByMail(events: readonly ConfirmationEvent[], account: string): boolean {
  return events.some((e) => DECISION_TYPES.has(e.type) && e.actor === account && e.channel === 'email');
}

/** The single-use marks of email links. */
export class UsedLinks {
  private readonly local = new Map<string, number>();

  constructor(private readonly marks?: SharedMarks) {}

  /** Marks the links of (`requestId`, `recipient`) spent until `expiresAt`; false when they were spent already. */
  async spend(requestId: string, recipient: string, expiresAt: number, now: number): Promise<boolean> {
    const key = `${requestId}|${recipient}`;
    if (this.marks) return this.marks.add('email_link', key, new Date(Math.max(expiresAt, now + 1000)));
    for (const [k, until] of this.local) if (until <= now) this.local.delete(k);
    if (this.local.has(key)) return false;
    this.local.set(key, Math.max(expiresAt, now + 1000));
    return true;
  }

  /** Gives a spent link back (the decision failed for a reason of ours, so the approver may try again). */
  async release(requestId: string, recipient: string, now: number): Promise<void> {
    const key = `${requestId}|${recipient}`;
    if (this.marks) await this.marks.take('email_link', key, new Date(now));
    else this.local.delete(key);
  }

  /** Whether the links of (`requestId`, `recipient`) are spent (by mark; the caller checks the events too). */
  async spent(requestId: string, recipient: string, now: number): Promise<boolean> {
    const key = `${requestId}|${recipient}`;
    if (this.marks) return this.marks.has('email_link', key, new Date(now));
    return (this.local.get(key) ?? 0) > now;
  }
}
