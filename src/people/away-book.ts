/**
 * @module people/away-book
 * Away windows in force: the config file's (`people[].away`, reloaded with the directory) overridden by the database's
 * (`PUT /v1/people/…/away`), which every replica reads, so they agree on who stands in for whom and a change outlives a
 * restart. Setting a window checks it against the directory (the delegate must be another person) and against the
 * windows in force (no cycle), then records the change; each change is a row of its own (`people_away`), the record of
 * who changed whose status when, and a `person.away_changed` line in the log.
 *
 * @remarks Left out: what delegation means for a decision (`gateway/decide.ts`) and what it reads (`away.ts`).
 */
import type { Logger } from 'pino';
import { ConflictError, ValidationError } from '../api/errors.js';
import type { Clock } from '../utils/clock.js';
import { delegationCycle, Delegations, type Away } from './away.js';
import type { Directory } from './types.js';

/** One change of a person's away status, as the database keeps it (the newest per person is in force). */
export interface AwayChange {
  /** The row's id (assigned by the store). */
  id?: number;
  person: string;
  /** The window set, or null: "not away" (which overrides the config file's window too). */
  away: Away | null;
  /** Who changed it: `person:alice`, or `api:<token name>` for an admin. */
  setBy: string;
  at: Date;
}

/**
 * Where away changes are kept (`people_away`, on SQLite and PostgreSQL alike).
 * @remarks Left out: checks. The store records what {@link AwayBook} has validated.
 */
export interface AwayStore {
  /**
   * Each person's newest change — with the gateway's witness set, each person's newest change it signed
   * (`audit/witnessed-rows.ts`): a row written around tollgate is not in force.
   */
  latest(): Promise<AwayChange[]>;
  /**
   * Appends `change`; returns it with its id. With `check`, atomically: `check` sees every person's newest change as
   * of the write, under a lock no other `record` of any replica passes meanwhile, and throwing from it writes nothing
   * (the delegation cycle check: two replicas must not close a cycle together).
   */
  record(change: AwayChange, check?: (latest: AwayChange[]) => void): Promise<AwayChange>;
  /** One person's changes, newest first, at most `limit`. */
  history(person: string, limit: number): Promise<AwayChange[]>;
  /** Every person's changes with `id > afterId`, oldest first, at most `limit`: the event stream's `person.away_changed`. */
  after(afterId: number, limit: number): Promise<AwayChange[]>;
  /** The newest change's id (0 when there is none). */
  head(): Promise<number>;
}

/** A person's window in force and where it comes from. */
export interface AwayStatus {
  away: Away | null;
  source: 'config' | 'database' | null;
  setBy: string | null;
  at: Date | null;
}

const NO_ROWS: ReadonlyMap<string, AwayChange> = new Map();

/** How long a read of the database serves the card path (filing, escalation) before it is read again. */
const CARD_PATH_MAX_AGE_MS = 1000;

/** The away windows in force; see the module comment. */
export class AwayBook {
  private cache: { rows: ReadonlyMap<string, AwayChange>; readAt: number } | null = null;
  /** The windows of the last rows and directory seen: rebuilt only when either changes (filing reads them each time). */
  private merged: { rows: ReadonlyMap<string, AwayChange>; directory: Directory; windows: Map<string, Away> } | null =
    null;
  private refreshing: Promise<unknown> | null = null;

  constructor(
    private readonly deps: {
      store: AwayStore | null;
      directory: () => Directory;
      clock: Clock;
      logger?: Pick<Logger, 'info'>;
    },
  ) {}

  /**
   * The delegations in force now. `fresh`: read the database first (a decision, an inbox); otherwise a read up to a
   * second old serves (cards), so filing does not pay a query each time.
   */
  async delegations(fresh = true): Promise<Delegations> {
    const rows = await this.rows(fresh);
    return new Delegations(this.windows(rows), new Date(this.deps.clock.now()));
  }

  /**
   * The delegations in force by the last read of the database, without reading it again: for what must answer at
   * once (whether to show a signed-in person the buttons). A decision never rests on it; it reads afresh.
   */
  known(): Delegations {
    // Older than a second (or never read): read again in the background, for the next caller.
    if (
      this.deps.store &&
      !this.refreshing &&
      (!this.cache || performance.now() - this.cache.readAt >= CARD_PATH_MAX_AGE_MS)
    ) {
      this.refreshing = this.rows(true)
        .catch(() => undefined)
        .finally(() => (this.refreshing = null));
    }
    return new Delegations(this.windows(this.cache?.rows ?? NO_ROWS), new Date(this.deps.clock.now()));
  }

  /** A person's window in force, and where it comes from. */
  async statusOf(person: string): Promise<AwayStatus> {
    const row = (await this.rows(true)).get(person);
    if (row) return { away: row.away, source: row.away ? 'database' : null, setBy: row.setBy, at: row.at };
    const configured = this.deps.directory().person(person)?.away ?? null;
    return { away: configured, source: configured ? 'config' : null, setBy: null, at: null };
  }

  /** One person's recorded changes, newest first. */
  async history(person: string, limit = 50): Promise<AwayChange[]> {
    return this.deps.store ? this.deps.store.history(person, limit) : [];
  }

  /**
   * Sets (or, with `away` null, clears) `person`'s window, as `setBy`.
   * @throws ValidationError naming `delegate` when it is not another person of the directory.
   * @throws ValidationError naming `delegate` and the cycle the window would close (`alice → bob → alice`).
   * @throws ConflictError when there is no database to keep the window in.
   */
  async set(person: string, away: Away | null, setBy: string): Promise<AwayChange> {
    if (!this.deps.store)
      throw new ConflictError('away windows cannot be set on this gateway: it has no database to keep them in');
    const directory = this.deps.directory();
    if (away?.delegate) {
      if (away.delegate === person)
        throw new ValidationError(`delegate: person:${person} cannot be their own delegate`, [
          { path: 'delegate', message: 'a delegate is another person' },
        ]);
      if (!directory.person(away.delegate)) {
        throw new ValidationError(`delegate: person:${away.delegate} is not a person of the directory`, [
          { path: 'delegate', message: `person:${away.delegate}: no such person in the people directory` },
        ]);
      }
    }
    // Checked in the store's write, under its lock: a check read before it let two replicas close a cycle together.
    const noCycle = (latest: AwayChange[]) => {
      if (!away?.delegate) return;
      const others = new Map(this.windows(new Map(latest.map((c) => [c.person, c]))));
      others.delete(person);
      const cycle = delegationCycle(others, person, away);
      if (cycle) {
        const named = cycle.join(' → ');
        throw new ValidationError(`delegate: the delegations would form a cycle: ${named}`, [
          { path: 'delegate', message: `the delegations would form a cycle: ${named}` },
        ]);
      }
    };
    const change = await this.deps.store.record({ person, away, setBy, at: new Date(this.deps.clock.now()) }, noCycle);
    this.cache = null;
    this.deps.logger?.info(
      {
        event: 'person.away_changed',
        person,
        setBy,
        away: away && { from: away.from.toISOString(), until: away.until.toISOString(), delegate: away.delegate },
      },
      'person.away_changed',
    );
    return change;
  }

  private async rows(fresh: boolean): Promise<ReadonlyMap<string, AwayChange>> {
    if (!this.deps.store) return NO_ROWS;
    if (!fresh && this.cache && performance.now() - this.cache.readAt < CARD_PATH_MAX_AGE_MS) return this.cache.rows;
    const rows = new Map((await this.deps.store.latest()).map((c) => [c.person, c]));
    this.cache = { rows, readAt: performance.now() };
    return rows;
  }

  /** Every window in force: the config's, each overridden by the person's newest database row. */
  private windows(rows: ReadonlyMap<string, AwayChange>): Map<string, Away> {
    const directory = this.deps.directory();
    if (this.merged?.rows === rows && this.merged.directory === directory) return this.merged.windows;
    const windows = new Map<string, Away>();
    for (const person of directory.people()) if (person.away) windows.set(person.id, person.away);
    for (const [person, change] of rows) {
      if (change.away) windows.set(person, change.away);
      else windows.delete(person);
    }
    this.merged = { rows, directory, windows };
    return windows;
  }
}
