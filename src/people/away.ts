/**
 * @module people/away
 * Who is away, and who stands in for them (ARCHITECTURE.md, "Away and delegates"). A person's away window names one
 * delegate, a person of the directory; while the window holds, whatever waits for the absentee also waits for the
 * delegate, and for the delegate's own delegate should they be away too, up to {@link MAX_DELEGATION_STEPS} steps.
 *
 * Four eyes survive a delegation because nothing here adds a person: a delegate's vote is the delegate's (a quorum
 * counts them once however many absentees they stand for), and the checks that refuse a requester apply to the
 * delegate and to the absentee alike (`gateway/decide.ts`).
 *
 * @remarks Left out: storage (config in `people/config.ts`, the database in `away-book.ts`), and time zones: windows
 * are instants, shown in UTC.
 */

/** One away window. */
export interface Away {
  from: Date;
  until: Date;
  /**
   * The delegate's person id (written `person:<id>` in the config and the API), or null: away with nobody standing
   * in (requests still wait for them; an escalation step skips them).
   */
  delegate: string | null;
  note: string | null;
}

/** How many delegations a chain follows: alice → bob → carol → dave, and no further. */
export const MAX_DELEGATION_STEPS = 3;

/** Whether `away` holds at `now` (from inclusive, until exclusive). */
export function awayAt(away: Away | null | undefined, now: Date): away is Away {
  return !!away && away.from.getTime() <= now.getTime() && now.getTime() < away.until.getTime();
}

/**
 * A person a delegate stands in for, and until when (what a card says: "for alice (away until 3 Dec)").
 */
export interface StandIn {
  delegate: string;
  absentee: string;
  until: Date;
}

/**
 * The delegations in force at one instant, answered from memory. Built from every person's away window (the config's,
 * overridden by what the database holds) by `AwayBook`.
 */
export class Delegations {
  private readonly active = new Map<string, Away>();

  constructor(
    windows: ReadonlyMap<string, Away>,
    readonly now: Date,
  ) {
    for (const [person, away] of windows) if (awayAt(away, now)) this.active.set(person, away);
  }

  /** No delegation holds: the gateway skips every delegation step. */
  get empty(): boolean {
    return this.active.size === 0;
  }

  /** The person's away window if it holds now. */
  awayOf(person: string): Away | null {
    return this.active.get(person) ?? null;
  }

  /** Whether `person` is away now with nobody standing in for them (an escalation step skips them). */
  unattended(person: string): boolean {
    return this.active.has(person) && this.delegatesOf(person).length === 0;
  }

  /**
   * The people standing in for `person` now, nearest first: their delegate, and that delegate's while they are away
   * too, up to {@link MAX_DELEGATION_STEPS}. Empty when the person is not away. A chain never returns to anyone on it.
   */
  delegatesOf(person: string): string[] {
    const chain: string[] = [];
    let at = person;
    for (let step = 0; step < MAX_DELEGATION_STEPS; step++) {
      const away = this.active.get(at);
      if (!away?.delegate || away.delegate === person || chain.includes(away.delegate)) break;
      chain.push(away.delegate);
      at = away.delegate;
    }
    return chain;
  }

  /** The absentees `delegate` stands in for now (directly or down a chain), in the order first met. */
  absenteesFor(delegate: string): string[] {
    return [...this.active.keys()].filter((person) => this.delegatesOf(person).includes(delegate));
  }

  /** `people` with everyone standing in for them added (each once, the given people first). */
  withDelegates(people: Iterable<string>): string[] {
    const all = [...people];
    for (const person of [...all])
      for (const delegate of this.delegatesOf(person)) if (!all.includes(delegate)) all.push(delegate);
    return all;
  }

  /** The stand-ins of `people` (who stands for whom, until when): what cards show. */
  standInsFor(people: Iterable<string>): StandIn[] {
    const found: StandIn[] = [];
    for (const absentee of people) {
      const away = this.active.get(absentee);
      if (!away) continue;
      for (const delegate of this.delegatesOf(absentee)) found.push({ delegate, absentee, until: away.until });
    }
    return found;
  }
}

/** No delegation anywhere (no directory, no database): every question answers "nobody". */
export const NO_DELEGATIONS = new Delegations(new Map(), new Date(0));

/**
 * The cycle `person`'s window would close, as the people on it (`['alice', 'bob', 'alice']`), or null. Only windows
 * that overlap `person`'s count: alice → bob in December and bob → alice in January is no cycle.
 * @example delegationCycle(new Map([['bob', bobAway]]), 'alice', aliceAway) // ['alice', 'bob', 'alice'] when bob delegates to alice
 */
export function delegationCycle(others: ReadonlyMap<string, Away>, person: string, away: Away): string[] | null {
  const path = [person];
  let next = away.delegate;
  while (next !== person) {
    if (next === null) return null;
    if (path.includes(next)) return null;
    path.push(next);
    const theirs = others.get(next);
    if (!theirs || theirs.until.getTime() <= away.from.getTime() || theirs.from.getTime() >= away.until.getTime())
      return null;
    next = theirs.delegate;
  }
  return [...path, person];
}

/** A date as a card and a message show it: `3 Dec` (UTC), with the year when it is not `now`'s. */
export function shortDate(date: Date, now: Date = new Date()): string {
  const month = date.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  const year = date.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${date.getUTCFullYear()}`;
  return `${date.getUTCDate()} ${month}${year}`;
}

/** What a card says of a stand-in: `bob for alice (away until 3 Dec)`. */
export function standInText(standIn: StandIn, now?: Date): string {
  return `${standIn.delegate} for ${standIn.absentee} (away until ${shortDate(standIn.until, now)})`;
}
