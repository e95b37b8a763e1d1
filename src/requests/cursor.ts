/**
 * @module requests/cursor
 * The audit query's cursor, shared by every store dialect: opaque to clients (base64url of the last row's creation
 * time and id), so a page link made by one replica works on another whatever database sits behind it.
 */
import { ValidationError } from '../api/errors.js';

/** Where the next page starts: after the row created at `createdAt` (ISO 8601) with id `id`, newest first. */
export interface CursorPosition {
  createdAt: string;
  id: string;
}

/** A cursor this server did not issue: a 400 naming `cursor`, whichever store read it. */
export class InvalidCursorError extends ValidationError {
  constructor() {
    super('cursor: not one this server issued', [{ path: 'cursor', message: 'not one this server issued' }]);
  }
}

/** The cursor for the page after the row created at `createdAt` with id `id`. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

/**
 * Reads a cursor made by {@link encodeCursor}.
 * @throws InvalidCursorError for anything else.
 */
export function decodeCursor(cursor: string): CursorPosition {
  const [createdAt, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || extra !== undefined || Number.isNaN(Date.parse(createdAt))) throw new InvalidCursorError();
  return { createdAt, id };
}

/**
 * A page from up to `limit + 1` rows read newest first: the extra row only says there is more, and the cursor points
 * after the last row shown. Every dialect pages the same way, so cursors mean the same on SQLite and PostgreSQL.
 */
export function pageOf<T extends { createdAt: Date; id: string }>(
  rows: readonly T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}

/** Every row of a paged query, 500 at a time: how stores implement `scan` on top of their `list`. */
export async function* allPages<T, Q extends object>(
  list: (query: Q & { limit: number; cursor?: string }) => Promise<{ items: T[]; nextCursor: string | null }>,
  query: Q,
): AsyncIterable<T> {
  let cursor: string | undefined;
  do {
    const page = await list({ ...query, limit: 500, cursor });
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/**
 * The audit query for several deciders (`?group=`), or for a person's votes beside their verdicts (`includeVotes`):
 * one query per person (and one per person's votes), each reading its own index range newest first, merged here.
 * One query with `responded_by_person IN (…)` makes the database sort every row the group ever decided before it
 * can cut a page — after a year of history, hundreds of thousands of rows for one page of 50.
 * @param votedOn one page of the requests a person voted on without settling them (`confirmation_voters`)
 */
export async function pageForEachPerson<
  T extends { createdAt: Date; id: string },
  Q extends { respondedByPeople?: readonly string[]; includeVotes?: boolean; limit?: number },
>(
  list: (query: Q) => Promise<{ items: T[]; nextCursor: string | null }>,
  query: Q,
  limit: number,
  votedOn?: (person: string, query: Q) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const people = [...new Set(query.respondedByPeople ?? [])];
  // limit + 1 rows of each: enough to fill the page and know whether there is more.
  const pages = await Promise.all(
    people.flatMap((person) => {
      const one = { ...query, respondedByPeople: [person], includeVotes: false, limit: limit + 1 };
      return query.includeVotes && votedOn ? [list(one), votedOn(person, one)] : [list(one)];
    }),
  );
  // A request alice voted on and bob settled is in two ranges: once on the page.
  const seen = new Set<string>();
  const rows = pages
    .flatMap((p) => p.items)
    .filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id)))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  // A range capped below limit + 1 (limit 500) may hide more rows behind its own cursor.
  const more = rows.length > limit || pages.some((p) => p.nextCursor !== null && p.items.length < limit + 1);
  return { items, nextCursor: more && last ? encodeCursor(last.createdAt, last.id) : null };
}

/** Whether `query` reads several ranges merged ({@link pageForEachPerson}) rather than one. */
export function mergesRanges(query: { respondedByPeople?: readonly string[]; includeVotes?: boolean }): boolean {
  const people = query.respondedByPeople?.length ?? 0;
  return people > 1 || (people === 1 && query.includeVotes === true);
}
