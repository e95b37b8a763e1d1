/**
 * @module insights/query
 * `GET /v1/insights`'s query string as an {@link InsightsQuery}: the window (default: the last 30 days), the
 * dimension, and for `by=group` the directory's groups flattened to `[person, group]` pairs. Bad input is a 400
 * naming the field.
 */
import { z } from 'zod';
import { ValidationError } from '../api/errors.js';
import type { Directory } from '../people/types.js';
import { parseInput } from '../api/validation.js';
import { INSIGHTS_DIMENSIONS, type InsightsQuery } from './types.js';

const DAY_MS = 86_400_000;
/** The window when `since` is not given. */
export const DEFAULT_WINDOW_DAYS = 30;
/** The longest window answered: its series has a row per day. */
export const MAX_WINDOW_DAYS = 3660;

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** The query string of `GET /v1/insights`. */
export const insightsQuerySchema = z.strictObject({
  since: isoDate.optional(),
  until: isoDate.optional(),
  by: z.enum(INSIGHTS_DIMENSIONS).default('tool'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** A window `[since, until)` from optional bounds: until defaults to now, since to 30 days before until. */
export function insightsWindow(bounds: { since?: Date; until?: Date }, now: number): { since: Date; until: Date } {
  const until = bounds.until ?? new Date(now);
  const since = bounds.since ?? new Date(until.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
  if (until.getTime() <= since.getTime())
    throw new ValidationError('until: must be after since', [{ path: 'until', message: 'must be after since' }]);
  if (until.getTime() - since.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    throw new ValidationError(`since: the window may span at most ${MAX_WINDOW_DAYS} days`, [
      { path: 'since', message: `at most ${MAX_WINDOW_DAYS} days before until` },
    ]);
  }
  return { since, until };
}

/** The store query `raw` (an express query object) asks for. @throws ValidationError naming the bad field. */
export function parseInsightsQuery(raw: unknown, now: number, directory: Directory): InsightsQuery {
  const q = parseInput(insightsQuerySchema, raw, 'query');
  const by = q.by;
  const query: InsightsQuery = { ...insightsWindow(q, now), by, limit: q.limit };
  if (by === 'group') query.groups = directory.groups().flatMap((g) => g.people.map((p) => [p, g.id] as const));
  return query;
}
