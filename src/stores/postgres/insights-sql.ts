/**
 * @module stores/postgres/insights-sql
 * The pieces of insights' SQL that the exact statements (`insights.ts`) and the rollup's (`insights-rollup.ts`) share:
 * each dimension's key and the time to decision.
 */
import type { InsightsDimension } from '../../insights/types.js';

/** Each dimension's key, as a column of `confirmation_requests r` (or of the group pairs `g`). */
export const KEYS: Record<InsightsDimension, string> = {
  tool: 'r.tool_name',
  agent: 'r.agent_id',
  agent_kind: 'r.agent_kind',
  repo: "r.context->>'repo'",
  person: 'r.responded_by_person',
  channel: 'r.responded_via',
  approver: 'CASE WHEN r.responded_by_person IS NOT NULL THEN r.responded_by END',
  // The call summary's risk, read from the stored summary (no column of its own: no migration, and a rollup built
  // with another list of dimensions is rebuilt).
  risk: "r.summary->>'risk'",
  group: 'g.grp',
  day: "to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
};

/**
 * Time to decision in ms, for rows a person decided: from the first card delivered before the verdict to the verdict;
 * without such a delivery (decided over the API before any card went out, or filed before deliveries were recorded),
 * from the filing.
 */
export const DECISION_MS = `CASE WHEN r.responded_by_person IS NOT NULL AND r.status IN ('approved', 'denied') THEN
  round(extract(epoch FROM r.responded_at - COALESCE(
    (SELECT min(e.at) FROM confirmation_events e WHERE e.request_id = r.id AND e.type = 'delivered' AND e.at <= r.responded_at),
    r.created_at)) * 1000)::float8 END`;
