/**
 * @module insights/service
 * What the gateway offers transports about its history's insights: the report of `GET /v1/insights`, read from the
 * store in SQL and shaped once for every store.
 */
import type { Directory } from '../people/types.js';
import { parseInsightsQuery } from './query.js';
import { insightsReport, type InsightsJson } from './report.js';
import type { InsightsStore } from './types.js';

/** What {@link Insights} reads from. */
export interface InsightsDeps {
  store: InsightsStore;
  /** The people directory in force (groups, for `by=group`). */
  directory: () => Directory;
  /** The gateway's clock, in ms (the default window ends now). */
  now: () => number;
}

/** The insights the gateway answers. */
export class Insights {
  constructor(private readonly deps: InsightsDeps) {}

  /** `GET /v1/insights` for the query string `raw`. @throws ValidationError naming a bad field. */
  async report(raw: unknown): Promise<InsightsJson> {
    const query = parseInsightsQuery(raw, this.deps.now(), this.deps.directory());
    return insightsReport(query, await this.deps.store.insights(query));
  }
}
