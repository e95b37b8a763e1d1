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

import type { AgentContext, RequestStatus } from '../requests/types.js';
import type { RollupRead, RollupRow, RollupState } from './rollup-types.js';

/**
 * What `?by=` may group by (contract), and `day` (the UTC day filed: each day's time to decision, for the insights
 * page's chart). `agent_kind` and `repo` are a coding agent's (`agent_kind`, `context.repo`; null for other callers);
 * `approver` is the account that gave a person's verdict as stored (`responded_by`: `slack:U1`, `web:alice`), the
 * fast-approval figure per account where `person` gives it per person; `risk` is the call summary's (`low`, `medium`,
 * `high`; null for a request filed before summaries), read from the stored summary.
 */
export const INSIGHTS_DIMENSIONS = [
  'tool',
  'agent',
  'agent_kind',
  'person',
  'group',
  'channel',
  'repo',
  'approver',
  'risk',
  'day',
] as const;
/** One group-by dimension. */
export type InsightsDimension = (typeof INSIGHTS_DIMENSIONS)[number];

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
  by: InsightsDimension;
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
  /** The tool name, agent id, agent kind, repository, person id, group id or channel as stored (null: requests without one). */
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

/**
 * What a policy replay reads of a filed request (`InsightsStore.replay`): the facts a rule matches, how the request was
 * routed and how it ended. The JSON fields may be decoded only when read (a candidate whose rules never look at a
 * request's arguments never pays for them), so read each at most as often as needed.
 */
export interface ReplayRow {
  id: string;
  toolName: string;
  readonly toolArgs: Record<string, unknown>;
  agentId: string | null;
  userId: string | null;
  sessionId: string | null;
  agentKind: string | null;
  readonly context: AgentContext | null;
  readonly metadata: Record<string, unknown>;
  readonly approvers: string[];
  requiredApprovals: number;
  status: RequestStatus;
  respondedVia: string | null;
  respondedByPerson: string | null;
  reason: string | null;
  /** ISO 8601 (UTC, ms). */
  createdAt: string;
}

/** The insights reads a store offers. */
export interface InsightsStore {
  /**
   * Counts requests filed in the query's window, grouped and by day, in SQL, reading every request of it: the exact
   * computation (nearest-rank percentiles), which the rollup's tests hold its answers to. `GET /v1/insights` answers
   * from the rollup instead.
   */
  insights(query: InsightsQuery): Promise<InsightsCounts>;
  /** The rollup's state row (`rollup.ts`), or null before its first refresh. */
  rollupState(): Promise<RollupState | null>;
  /**
   * Recomputes the rollup's days `[from, through)` from the requests (every day before `through` when `from` is null)
   * and writes them with the state row, replacing what those days held, off the gateway's thread and outside any
   * create's or decision's transaction; days before the oldest request are dropped (pruned history).
   */
  refreshRollup(range: { from: string | null; through: string }, refreshedAt: Date): Promise<RollupState>;
  /** The rows answering `read` (`rollup.ts`): the rollup's days summed by key and bucket, and the live ranges' rows. */
  rollupRows(read: RollupRead): Promise<RollupRow[]>;
  /** The repeating calls of the window (see {@link SuggestionCandidate}), most approved first, grouped in SQL. */
  suggestionCandidates(query: SuggestionQuery): Promise<SuggestionCandidate[]>;
  /**
   * Every request filed in `[since, until)`, newest first, a page at a time (each page read in a short statement of
   * its own, so a long replay holds no snapshot open): the rows a policy replay reads, and no other column.
   * @param pageSize rows per page (default: the store's own, a few thousand)
   */
  replay(window: { since: Date; until: Date }, pageSize?: number): AsyncIterable<readonly ReplayRow[]>;
}
