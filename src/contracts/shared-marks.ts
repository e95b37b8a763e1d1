/**
 * @module contracts/shared-marks
 * Short-lived marks every replica must see: a one-time web login link not yet spent, a web session signed out before
 * its expiry, the nonce of a Feishu callback already accepted, a hook call being filed (a short lease), an email approval link already used. On PostgreSQL they live in the database (`shared_marks`), so a link printed by one replica signs in on
 * another exactly once and a sign-out on one ends the session everywhere; on SQLite (one host) the web channel keeps
 * them in memory.
 *
 * @remarks Left out: anything that must outlive its `expiresAt` (marks vanish after it) and bulk data.
 */

/** Kinds of mark in use: keep names short and stable, they are stored. */
export type MarkKind = 'login_link' | 'signed_out' | 'feishu_nonce' | 'call_lock' | 'email_link' | 'push_action';

/** A set of expiring marks, shared by every replica on the same database. */
export interface SharedMarks {
  /** Records `key` until `expiresAt`; false when an unexpired mark with this key exists already. */
  add(kind: MarkKind, key: string, expiresAt: Date): Promise<boolean>;
  /** Removes an unexpired mark; true for exactly one caller, however many replicas race for it. */
  take(kind: MarkKind, key: string, now: Date): Promise<boolean>;
  /** Whether an unexpired mark exists. */
  has(kind: MarkKind, key: string, now: Date): Promise<boolean>;
}
