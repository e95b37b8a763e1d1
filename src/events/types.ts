/**
 * @module events/types
 * The event stream's contract with the database. The outbox is the audit trail itself: every change writes its
 * `confirmation_events` row in the transaction that makes it, so an event exists exactly when its change committed,
 * and ids give one order. A sink is a cursor on that table (an `audit_marks` row per sink), advanced only after the
 * sink acknowledged: at least once, in order, across restarts and replicas.
 */
import type { ConfirmationEvent, EventType } from '../requests/types.js';

/** Reads the event table for the stream and keeps each sink's cursor. */
export interface EventLog {
  /** Up to `limit` events of `types` with `id > afterId`, by id. */
  after(afterId: number, limit: number, types: readonly EventType[]): Promise<ConfirmationEvent[]>;
  /** The newest event id (0 when there is none). */
  head(): Promise<number>;
  /** The sink's cursor: the last event it acknowledged, or null before its first delivery. */
  cursor(name: string): Promise<number | null>;
  /** Moves the sink's cursor forward (never back). */
  advance(name: string, eventId: number): Promise<void>;
  /**
   * Runs `fn` while holding the sink's lock, so one replica delivers each sink at a time (order holds); resolves
   * false without running it when another replica holds the lock.
   */
  exclusive(name: string, fn: () => Promise<void>): Promise<boolean>;
}
