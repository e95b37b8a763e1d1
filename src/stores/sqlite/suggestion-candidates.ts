/**
 * @module stores/sqlite/suggestion-candidates
 * The SQL of `InsightsStore.suggestionCandidates` on SQLite: every string argument of every call in the window, cut
 * to its first word and its first two, grouped by agent, tool, argument and words; a group qualifies with `min`
 * clean approvals (by a person, arguments as asked) and nothing denied, edited or expired. Only the groups leave
 * the database. PostgreSQL's twin is `../postgres/suggestion-candidates.ts`.
 */
import type { OffThreadRead } from './off-thread-reads.js';
import type { SuggestionQuery } from '../../insights/types.js';

/** The first word of `v` (already left-trimmed), in SQLite's string functions. */
const firstWord = (v: string) =>
  `CASE WHEN instr(${v}, ' ') > 0 THEN substr(${v}, 1, instr(${v}, ' ') - 1) ELSE ${v} END`;

/** A clean approval: a person approved the call as asked. */
const CLEAN = "status = 'approved' AND NOT edited AND person IS NOT NULL";

/** Time to decision as insights count it, from the first delivery before the verdict (else the filing). */
const DECISION_MS = `CAST(ROUND((julianday(r.responded_at) - julianday(COALESCE(
    (SELECT MIN(e.at) FROM confirmation_events e INDEXED BY confirmation_events_delivered WHERE e.request_id = r.id AND e.type = 'delivered' AND e.at <= r.responded_at),
    r.created_at))) * 86400000) AS INTEGER)`;

const SQL = `WITH words AS MATERIALIZED (
  SELECT r.id, r.agent_id, r.tool_name, r.status, r.approved_args IS NOT NULL AS edited, r.responded_by_person AS person,
    CASE WHEN r.responded_by_person IS NOT NULL AND r.status = 'approved' THEN ${DECISION_MS} END AS ms,
    a.key AS key, a.value AS value, ${firstWord("ltrim(a.value, ' ')")} AS w1,
    CASE WHEN instr(ltrim(a.value, ' '), ' ') > 0 THEN ltrim(substr(ltrim(a.value, ' '), instr(ltrim(a.value, ' '), ' ') + 1), ' ') ELSE '' END AS rest
  FROM confirmation_requests r, json_each(r.tool_args) a
  WHERE r.created_at >= @since AND r.created_at < @until AND a.type = 'text'
),
shapes AS (
  SELECT id, agent_id, tool_name, status, edited, person, ms, key, value, 1 AS words, w1 AS prefix FROM words
  UNION ALL
  SELECT id, agent_id, tool_name, status, edited, person, ms, key, value, 2, w1 || ' ' || ${firstWord('rest')} FROM words WHERE rest <> ''
)
SELECT agent_id AS agentId, tool_name AS toolName, key, words, prefix,
  CASE WHEN COUNT(DISTINCT value) = 1 THEN MIN(value) END AS value,
  SUM(${CLEAN}) AS approvals,
  TOTAL(CASE WHEN ${CLEAN} THEN ms END) AS decisionMs,
  json_group_array(DISTINCT person) FILTER (WHERE ${CLEAN}) AS approvers,
  MAX(CASE WHEN ${CLEAN} THEN id END) AS sampleRequestId
FROM shapes
GROUP BY agent_id, tool_name, key, words, prefix
HAVING SUM(${CLEAN}) >= @min AND SUM(status IN ('denied', 'expired') OR (status = 'approved' AND edited)) = 0
ORDER BY approvals DESC, toolName, agentId, key, words, prefix
LIMIT 1000`;

/** The statement (and parameters) that find `query`'s candidates; `approvers` comes back as a JSON array. */
export function suggestionCandidatesRead(query: SuggestionQuery): OffThreadRead {
  return { sql: SQL, params: { since: query.since.toISOString(), until: query.until.toISOString(), min: query.min } };
}
