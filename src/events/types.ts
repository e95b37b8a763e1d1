/**
 * @module events/types
 * The event stream's contract with the database. The outbox is the audit trail itself: every change writes its
 * `confirmation_events` row in the transaction that makes it, so an event exists exactly when its change committed.
 * The order is the audit trail's `seq`, given after commit by the integrator (`audit/integrator.ts`): ids are not
 * commit order on PostgreSQL (a transaction may commit after a later id), so a cursor on ids could pass an event that
 * committed late. A sink is a cursor on `seq` (an `audit_marks` row per sink), advanced only after the sink
 * acknowledged: at least once, in order, across restarts and replicas. Events reach the stream once placed (within
 * the merge delay, ~100 ms).
 */
import type { ConfirmationEvent, EventType } from '../requests/types.js';

/** An event with its place in the one order (`seq`): what stream cursors count. */
export type PlacedEvent = ConfirmationEvent & { position: number };

/** Reads the event table for the stream and keeps each sink's cursor. */
export interface EventLog {
  /** Up to `limit` placed events of `types` with `seq > afterPosition`, by seq. */
  after(afterPosition: number, limit: number, types: readonly EventType[]): Promise<PlacedEvent[]>;
  /** The newest placed event's position (0 when there is none). */
  head(): Promise<number>;
  /** The sink's cursor: the last event it acknowledged, or null before its first delivery. */
  cursor(name: string): Promise<number | null>;
  /** Moves the sink's cursor forward (never back). */
  advance(name: string, position: number): Promise<void>;
  /**
   * Runs `fn` while holding the sink's lock, so one replica delivers each sink at a time (order holds); resolves
   * false without running it when another replica holds the lock.
   */
  exclusive(name: string, fn: () => Promise<void>): Promise<boolean>;
}
