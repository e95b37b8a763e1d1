/**
 * @module stores/sqlite/event-log
 * {@link EventLog} on SQLite: one process owns the file, so the lock is this process's own.
 */
import type Database from 'better-sqlite3';
import type { EventLog, PlacedEvent } from '../../events/types.js';
import type { EventType } from '../../requests/types.js';
import { rowToEvent } from './rows.js';

const EVENT_COLUMNS = 'id, request_id AS requestId, type, actor, channel, detail, at, seq AS position';

/** The event stream's reads and cursors on the SQLite database. */
export class SqliteEventLog implements EventLog {
  private readonly held = new Set<string>();
  private statements: ReturnType<SqliteEventLog['prepare']> | null = null;

  constructor(private readonly sqlite: Database.Database) {}

  /**
   * Prepared on first use, not when the stores open (a tool reading an older database never streams), and then kept:
   * a sink reads and moves its cursor many times a second under load, and preparing costs more than these reads.
   */
  private prepare() {
    return {
      after: this.sqlite.prepare(
        `SELECT ${EVENT_COLUMNS} FROM confirmation_events WHERE seq > ? AND type IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?`,
      ),
      head: this.sqlite.prepare('SELECT size FROM chain_head WHERE id = 1').pluck(),
      cursor: this.sqlite.prepare('SELECT event_id FROM audit_marks WHERE name = ?').pluck(),
      advance: this.sqlite.prepare(
        'INSERT INTO audit_marks (name, event_id, at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET event_id = max(event_id, excluded.event_id), at = excluded.at',
      ),
    };
  }

  private get sql() {
    return (this.statements ??= this.prepare());
  }

  async after(afterPosition: number, limit: number, types: readonly EventType[]): Promise<PlacedEvent[]> {
    const rows = this.sql.after.all(afterPosition, JSON.stringify(types), limit) as (Parameters<
      typeof rowToEvent
    >[0] & { position: number })[];
    return rows.map((row) => ({ ...rowToEvent(row), position: row.position }));
  }

  async head(): Promise<number> {
    return (this.sql.head.get() as number | undefined) ?? 0;
  }

  async cursor(name: string): Promise<number | null> {
    return (this.sql.cursor.get(name) as number | undefined) ?? null;
  }

  async advance(name: string, eventId: number): Promise<void> {
    this.sql.advance.run(name, eventId, new Date().toISOString());
  }

  async exclusive(name: string, fn: () => Promise<void>): Promise<boolean> {
    if (this.held.has(name)) return false;
    this.held.add(name);
    try {
      await fn();
      return true;
    } finally {
      this.held.delete(name);
    }
  }
}
