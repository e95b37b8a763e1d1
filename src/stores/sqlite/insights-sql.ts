/**
 * @module stores/sqlite/insights-sql
 * The pieces of insights' SQL that the exact statements (`insights.ts`) and the rollup's (`insights-rollup.ts`) share:
 * each dimension's key and the time to decision.
 */
import type { InsightsDimension } from '../../insights/types.js';

/** Each dimension's key, as a column of `confirmation_requests r` (or of the group pairs `g`). */
export const KEYS: Record<InsightsDimension, string> = {
  tool: 'r.tool_name',
  agent: 'r.agent_id',
  agent_kind: 'r.agent_kind',
  repo: "json_extract(r.context, '$.repo')",
  person: 'r.responded_by_person',
  channel: 'r.responded_via',
  approver: 'CASE WHEN r.responded_by_person IS NOT NULL THEN r.responded_by END',
  // The call summary's risk, read from the stored summary (no column of its own: no migration, and a rollup built
  // with another list of dimensions is rebuilt).
  risk: "json_extract(r.summary, '$.risk')",
  group: "json_extract(g.value, '$[1]')",
  day: 'substr(r.created_at, 1, 10)',
};

/**
 * Time to decision in ms, for rows a person decided: from the first card delivered before the verdict to the verdict.
 * A request with no such delivery (decided over the API before any card went out, or filed before deliveries were
 * recorded) counts from its filing instead: the time it waited is still the time it waited. The deliveries are read
 * from their own partial index, by request (`INDEXED BY`: SQLite has no statistics, and on its own it took the type
 * index, walking every delivery ever recorded for each row).
 */
export const DECISION_MS = `CASE WHEN r.responded_by_person IS NOT NULL AND r.status IN ('approved', 'denied') THEN
  CAST(ROUND((julianday(r.responded_at) - julianday(COALESCE(
    (SELECT MIN(e.at) FROM confirmation_events e INDEXED BY confirmation_events_delivered WHERE e.request_id = r.id AND e.type = 'delivered' AND e.at <= r.responded_at),
    r.created_at))) * 86400000) AS INTEGER) END`;
