/**
 * @module insights/types
 * The insights contract (ARCHITECTURE.md, "Fourth stage: insights"): what the history says about how requests are
 * decided — counts by outcome, time to decision, edited arguments and approvals made too fast to have been read —
 * grouped by one dimension, with a daily series. Each store answers {@link InsightsStore} in its own SQL
 * (`stores/sqlite/insights.ts`, `stores/postgres/insights.ts`) without loading the history into memory; the
 * shapes the API answers are built from their raw aggregates by `insights/report.ts`, once for both.
 *
 * @remarks Left out: authorization (the route's), the people directory (groups arrive already flattened to
 * `[person, group]` pairs), and any cache: every call reads the database.
 */

/**
 * What `?by=` may group by (contract), and `day` (the UTC day filed: each day's time to decision, for the insights
 * page's chart). `agent_kind` and `repo` are accepted names that no request records yet.
 */
export const INSIGHTS_DIMENSIONS = ['tool', 'agent', 'agent_kind', 'person', 'group', 'channel', 'repo', 'day'] as const;
/** One group-by dimension. */
export type InsightsDimension = (typeof INSIGHTS_DIMENSIONS)[number];
/** The dimensions a store can group by today (see `insights/query.ts` for why the others are refused). */
export type StoredDimension = Exclude<InsightsDimension, 'agent_kind' | 'repo'>;

/** An approval this soon after the card reached the approver counts as a rubber stamp (`fast_approvals`). */
export const FAST_APPROVAL_MS = 3000;

/** Percentiles of time to decision, in ms (null when nothing in the group was decided by a person). */
export interface DecisionPercentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** What a store is asked: requests filed in `[since, until)`, grouped by `by`. */
export interface InsightsQuery {
  since: Date;
  until: Date;
  by: StoredDimension;
  /** Most rows (groups) answered, largest first. */
  limit: number;
  /** For `by: 'group'`: each person with each group they are in (a person in two groups counts in both). */
  groups?: readonly (readonly [person: string, group: string])[];
}

/**
 * One group's raw aggregates as a store counts them. `decisionMs` is over the requests a person decided (approved or
 * denied by a human; a policy's, a grant's or the clock's verdict has no person), from the first delivery of a card
 * before the verdict to the verdict.
 */
export interface InsightsGroupCounts {
  /** The tool name, agent id, person id, group id or channel as stored (null: requests without one). */
  key: string | null;
  requests: number;
  approved: number;
  denied: number;
  expired: number;
  /** Approved with edited arguments (`approved_args` set). */
  edited: number;
  /** Approvals made by a person (what `fast` is a share of). */
  humanApprovals: number;
  /** Of those, made within {@link FAST_APPROVAL_MS} of delivery. */
  fast: number;
  decisionMs: DecisionPercentiles;
}

/** Requests filed on one UTC day, by outcome. */
export interface InsightsDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  requests: number;
  approved: number;
  denied: number;
  expired: number;
  cancelled: number;
}

/** A store's whole answer: the groups (largest first) and the days that had requests (oldest first). */
export interface InsightsCounts {
  groups: InsightsGroupCounts[];
  days: InsightsDay[];
}

/**
 * A repeating call a store found: an agent's calls of a tool whose string argument `key` starts with the same word
 * (`words: 1`) or two (`words: 2`), approved by people at least `min` times in the window and never denied, edited or
 * left to expire. Words are split on spaces (leading spaces ignored, runs of spaces as one).
 */
export interface SuggestionCandidate {
  agentId: string | null;
  toolName: string;
  key: string;
  words: 1 | 2;
  /** The leading word(s), joined by one space. */
  prefix: string;
  /** The one value every such call had, or null when they differ. */
  value: string | null;
  /** Approvals by a person with the arguments as asked. */
  approvals: number;
  /** Their time to decision, summed (ms): what approvers would not have spent. */
  decisionMs: number;
  /** The people who gave them. */
  approvers: string[];
  /** The newest of them (a grant applied from the suggestion is recorded on it). */
  sampleRequestId: string;
}

/** What a store is asked for suggestions: calls filed in `[since, until)` approved at least `min` times. */
export interface SuggestionQuery {
  since: Date;
  until: Date;
  min: number;
}

/** The insights reads a store offers. */
export interface InsightsStore {
  /** Counts requests filed in the query's window, grouped and by day, in SQL. */
  insights(query: InsightsQuery): Promise<InsightsCounts>;
  /** The repeating calls of the window (see {@link SuggestionCandidate}), most approved first, grouped in SQL. */
  suggestionCandidates(query: SuggestionQuery): Promise<SuggestionCandidate[]>;
}
