/**
 * Records the SQL tollgate really runs, on both dialects, so a test can ask the database how it would run each
 * statement: every better-sqlite3 statement (prepared by the stores, by drizzle, by the CLI) and every `pg` query go
 * through the patched prototypes while recording is on. Nothing is copied from the sources, so a query changed there
 * is checked as it now is.
 */
import { Database, type SqliteConnection, type SqliteStatement } from '../../../src/stores/sqlite/driver.js';
import pg from 'pg';

/** One statement as it ran: its text and the values bound to it. */
export interface RecordedSql {
  text: string;
  values: unknown[];
  /** What the test was doing when it ran (the label given to {@link SqlRecorder.during}). */
  label: string;
}

type Statement = SqliteStatement;
type Method = (...params: unknown[]) => unknown;

/** Records SQL while `during()` runs; `restore()` puts the prototypes back. */
export class SqlRecorder {
  readonly recorded: RecordedSql[] = [];
  private label: string | null = null;
  private readonly restores: (() => void)[] = [];

  constructor() {
    const add = (text: string, values: unknown[]) => this.add(text, values);
    const proto = Database.prototype as unknown as { prepare(source: string): Statement };
    const prepare = proto.prepare;
    proto.prepare = function (this: SqliteConnection, source: string) {
      const statement = prepare.call(this, source);
      for (const method of ['all', 'get', 'run', 'iterate'] as const) {
        const original = statement[method] as Method;
        (statement as unknown as Record<string, Method>)[method] = function (this: Statement, ...params: unknown[]) {
          add(source, params);
          return original.apply(this, params);
        };
      }
      return statement;
    };
    this.restores.push(() => (proto.prepare = prepare));
    const clientProto = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
    const query = clientProto.query;
    clientProto.query = function (this: pg.Client, ...args: unknown[]) {
      const [config, values] = args;
      if (typeof config === 'string') add(config, Array.isArray(values) ? values : []);
      else if (config && typeof config === 'object' && 'text' in config) {
        const c = config as { text: string; values?: unknown[] };
        add(c.text, c.values ?? (Array.isArray(values) ? values : []));
      }
      return query.apply(this, args);
    };
    this.restores.push(() => (clientProto.query = query));
  }

  private add(text: string, values: unknown[]): void {
    if (this.label !== null) this.recorded.push({ text, values, label: this.label });
  }

  /** Runs `fn`, recording what it runs under `label`. */
  async during<T>(label: string, fn: () => Promise<T>): Promise<T> {
    this.label = label;
    try {
      return await fn();
    } finally {
      this.label = null;
    }
  }

  /** The statements that read or write the history tables, one per distinct text and label (the first values seen). */
  historyStatements(): RecordedSql[] {
    const seen = new Map<string, RecordedSql>();
    for (const r of this.recorded) {
      if (!/\b(confirmation_requests|confirmation_events)\b/.test(r.text)) continue;
      if (!/^\s*(SELECT|WITH|UPDATE|DELETE)\b/i.test(r.text)) continue;
      const key = `${r.label}\n${r.text}`;
      if (!seen.has(key)) seen.set(key, r);
    }
    return [...seen.values()];
  }

  restore(): void {
    for (const undo of this.restores.reverse()) undo();
  }
}
