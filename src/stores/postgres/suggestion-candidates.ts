/**
 * @module stores/postgres/suggestion-candidates
 * The SQL of `InsightsStore.suggestionCandidates` on PostgreSQL: the same groups as SQLite's
 * (`../sqlite/suggestion-candidates.ts`), words cut with the same rules, keys sorted byte-wise as SQLite sorts them.
 */

/** The first word of `v` (already left-trimmed). */
const firstWord = (v: string) =>
  `CASE WHEN strpos(${v}, ' ') > 0 THEN substr(${v}, 1, strpos(${v}, ' ') - 1) ELSE ${v} END`;

/** A clean approval: a person approved the call as asked. */
const CLEAN = "status = 'approved' AND NOT edited AND person IS NOT NULL";

/** Time to decision as insights count it, from the first delivery before the verdict (else the filing). */
const DECISION_MS = `round(extract(epoch FROM r.responded_at - COALESCE(
    (SELECT min(e.at) FROM confirmation_events e WHERE e.request_id = r.id AND e.type = 'delivered' AND e.at <= r.responded_at),
    r.created_at)) * 1000)::float8`;

/** $1 since, $2 until, $3 min. */
export const SUGGESTION_CANDIDATES_SQL = `WITH args AS MATERIALIZED (
  SELECT r.id, r.agent_id, r.tool_name, r.status, r.approved_args IS NOT NULL AS edited, r.responded_by_person AS person,
    CASE WHEN r.responded_by_person IS NOT NULL AND r.status = 'approved' THEN ${DECISION_MS} END AS ms,
    a.key, a.value #>> '{}' AS value, ltrim(a.value #>> '{}', ' ') AS v
  FROM confirmation_requests r CROSS JOIN LATERAL jsonb_each(r.tool_args) a
  WHERE r.created_at >= $1 AND r.created_at < $2 AND jsonb_typeof(a.value) = 'string'
),
words AS MATERIALIZED (
  SELECT *, ${firstWord('v')} AS w1, CASE WHEN strpos(v, ' ') > 0 THEN ltrim(substr(v, strpos(v, ' ') + 1), ' ') ELSE '' END AS rest FROM args
),
shapes AS (
  SELECT id, agent_id, tool_name, status, edited, person, ms, key, value, 1 AS words, w1 AS prefix FROM words
  UNION ALL
  SELECT id, agent_id, tool_name, status, edited, person, ms, key, value, 2, w1 || ' ' || ${firstWord('rest')} FROM words WHERE rest <> ''
)
SELECT agent_id AS "agentId", tool_name AS "toolName", key, words, prefix,
  CASE WHEN count(DISTINCT value) = 1 THEN min(value) END AS value,
  count(*) FILTER (WHERE ${CLEAN})::int AS approvals,
  coalesce(sum(ms) FILTER (WHERE ${CLEAN}), 0)::float8 AS "decisionMs",
  array_agg(DISTINCT person) FILTER (WHERE ${CLEAN}) AS approvers,
  max(id) FILTER (WHERE ${CLEAN}) AS "sampleRequestId"
FROM shapes
GROUP BY agent_id, tool_name, key, words, prefix
HAVING count(*) FILTER (WHERE ${CLEAN}) >= $3 AND count(*) FILTER (WHERE status IN ('denied', 'expired') OR (status = 'approved' AND edited)) = 0
ORDER BY approvals DESC, tool_name COLLATE "C", agent_id COLLATE "C", key COLLATE "C", words, prefix COLLATE "C"
LIMIT 1000`;
