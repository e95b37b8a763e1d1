/**
 * @module stores/postgres/statements
 * The PostgreSQL store's SQL, each statement run as a named prepared statement (as `sqlite/statements.ts` prepares
 * SQLite's once). Column lists come from the drizzle schema (`rows.ts`), so SQL and schema cannot drift.
 */
import type pg from 'pg';
import { CREATE_BATCH } from './creates.js';
import { selectList } from './rows.js';
import { channelMessages, confirmationEvents, confirmationRequests as requests } from './schema.js';
import { RECEIPT_TYPES_SQL } from '../../requests/receipts.js';
import { RECEIPT_COLUMNS } from '../../audit/read-back.js';

const REQUEST = selectList(requests);
const RETURNING_REQUEST = selectList(requests, 'r');

/** The store's statements, by name. */
export const SQL_TEXT = {
  byId: `SELECT ${REQUEST} FROM confirmation_requests WHERE id = $1`,
  byIds: `SELECT ${REQUEST} FROM confirmation_requests WHERE id = ANY($1::text[])`,
  /**
   * `FOR NO KEY UPDATE`, the lock the row's own UPDATE takes: it serializes votes, cancels and escalations of one
   * request, but not an event inserted for it meanwhile, whose foreign-key check takes a key-share lock on the row.
   * With `FOR UPDATE` the two waited on each other while the insert also held the old chain's lock (a deadlock,
   * 40P01: a card delivered while a quorum vote was counted).
   */
  byIdForUpdate: `SELECT ${REQUEST} FROM confirmation_requests WHERE id = $1 FOR NO KEY UPDATE`,
  /**
   * The row locked, with the deadline's clock: `$2` in the caller's-clock mode, else the database's (`now()`, the
   * transaction's start), so replicas whose clocks disagree agree on whether a request is overdue.
   */
  byIdForVote: `SELECT ${REQUEST}, coalesce($2::timestamptz, now()) AS "deadlineNow" FROM confirmation_requests WHERE id = $1 FOR NO KEY UPDATE`,
  byKey: `SELECT ${REQUEST} FROM confirmation_requests WHERE coalesce(filed_by, '') = $1 AND idempotency_key = $2`,
  create: CREATE_BATCH,
  /** An event inside a witnessed transaction: `$7` its leaf, `$8` its transaction's receipt (`witnessed.ts`). */
  insertEvent:
    'INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)',
  /** One event on its own: `insertEvent` with its receipt (`$8`…`$12`, all null without a witness) in the same statement. */
  appendEvent: `WITH receipt AS (
      INSERT INTO audit_receipts (id, kid, at, leaves, signature) SELECT $8, $9, $10, $11, $12 WHERE $8::text IS NOT NULL
    )
    INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)`,
  /** A witnessed transaction's last statement: its receipt (`$1`…`$5`, null when it added no event) and tokens. */
  seal: `WITH receipt AS (
      INSERT INTO audit_receipts (id, kid, at, leaves, signature) SELECT $1, $2, $3, $4, $5 WHERE $1::text IS NOT NULL
    )
    INSERT INTO verdict_tokens (request_id, token) SELECT * FROM unnest($6::text[], $7::text[])`,
  insertMessage: `INSERT INTO channel_messages (request_id, channel, target, status, attempts, updated_at) VALUES ($1, $2, $3, $4, 0, $5)
    ON CONFLICT (request_id, channel, target) DO NOTHING`,
  // The person of each approval (`detail.person`; an event written before the directory counts as its account's) and the
  // absentee whose seat it filled (`detail.on_behalf_of`).
  // With what a quorum checks each one by (`audit/witnessed-approvals.ts`): its columns as its leaf was computed, and
  // its receipt.
  approvers: `SELECT e.actor, coalesce(e.detail->>'person', e.actor) AS person, e.detail->>'on_behalf_of' AS "onBehalfOf",
      e.request_id AS "requestId", e.type, e.channel, e.detail::text AS detail, tollgate_chain_time(e.at) AS at,
      ${RECEIPT_COLUMNS}
    FROM confirmation_events e LEFT JOIN audit_receipts r ON r.id = e.receipt_id
    WHERE e.request_id = $1 AND e.type = 'approved' ORDER BY e.id`,
  /** An approval short of the quorum, for the audit query's `?person=` (`confirmation_voters`). */
  recordVoter:
    'INSERT INTO confirmation_voters (person, request_created_at, request_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
  touch: 'UPDATE confirmation_requests SET updated_at = $2 WHERE id = $1',
  /** The compare-and-set: only a pending row changes. */
  flip: `UPDATE confirmation_requests r SET status = $2, responded_at = $3, updated_at = $3, responded_by = $4, responded_via = $5,
      decision_option = $6, reason = $7, approved_args = $8::jsonb, allowed = $9, responded_by_person = $10, on_behalf_of = $11
    WHERE id = $1 AND status = 'pending' RETURNING ${RETURNING_REQUEST}`,
  /**
   * A vote that settles its request in one statement: the flip (a deny, or an approval where one suffices) and its
   * event ($12, canonical JSON; `$14` its leaf), or nothing when the row is not pending, needs a quorum or is past its
   * deadline (by `$13`, or the database's clock when `$13` is null). Same parameters as `flip` otherwise. Witnessed
   * (`witnessed.ts`): the receipt `$15`…`$19` and the verdict token `$20`, minted before the statement from the values
   * it commits; the token names the tool `$21` and arguments `$22` it was minted for, so the row changes only when
   * they are its own (null: not checked, when nothing was minted or the approved arguments are the token's).
   */
  settle: `WITH flipped AS (
      UPDATE confirmation_requests r SET status = $2, responded_at = $3, updated_at = $3, responded_by = $4, responded_via = $5,
        decision_option = $6, reason = $7, approved_args = $8::jsonb, allowed = $9, responded_by_person = $10, on_behalf_of = $11
      WHERE id = $1 AND status = 'pending' AND ($2::text = 'denied' OR required_approvals = 1)
        AND expires_at > coalesce($13::timestamptz, now())
        AND ($21::text IS NULL OR tool_name = $21) AND ($22::text IS NULL OR args_sha256 = $22) RETURNING ${RETURNING_REQUEST}
    ), logged AS (
      INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id)
      SELECT "id", $2, $4, $5, $12::jsonb, $3, $14, $15 FROM flipped
    ), receipt AS (
      INSERT INTO audit_receipts (id, kid, at, leaves, signature) SELECT $15, $16, $17, $18, $19 FROM flipped WHERE $15::text IS NOT NULL
    ), token AS (
      INSERT INTO verdict_tokens (request_id, token) SELECT "id", $20 FROM flipped WHERE $20::text IS NOT NULL
    )
    SELECT * FROM flipped`,
  /**
   * Claims up to $2 due rows no other replica holds (inside `expireDue`'s transaction), with the time they expire at:
   * `$1`, or the database's clock when `$1` is null (as for votes), at the columns' millisecond precision, so the
   * values signed are the values stored.
   */
  claimDue: `WITH clock AS MATERIALIZED (SELECT coalesce($1::timestamptz, now())::timestamptz(3) AS t)
    SELECT ${RETURNING_REQUEST}, clock.t AS "deadlineNow" FROM confirmation_requests r, clock
    WHERE r.status = 'pending' AND r.expires_at <= clock.t ORDER BY r.expires_at, r.id LIMIT $2 FOR NO KEY UPDATE OF r SKIP LOCKED`,
  /**
   * Expires the rows `$1` claimed at `$2`, with their events (details `$4`, leaves `$5`, receipt `$3`), the receipt
   * (`$3`, `$6`…`$9`) and the tokens (`$10`, `$11`): one statement, after `claimDue` in the same transaction.
   */
  expireClaimed: `WITH expired AS (
      UPDATE confirmation_requests r SET status = 'expired', responded_at = $2, updated_at = $2, responded_by = 'system',
        responded_via = NULL, allowed = (r.on_timeout = 'approve')
      WHERE r.id = ANY($1::text[]) AND r.status = 'pending' RETURNING r.id
    ), logged AS (
      INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id)
      SELECT e.request_id, 'expired', 'system', NULL, e.detail::jsonb, $2, e.leaf, $3
      FROM unnest($1::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(request_id, detail, leaf, ord) ORDER BY e.ord
    ), receipt AS (
      INSERT INTO audit_receipts (id, kid, at, leaves, signature) SELECT $3, $6, $7, $8, $9 WHERE $3::text IS NOT NULL
    ), token AS (
      INSERT INTO verdict_tokens (request_id, token) SELECT * FROM unnest($10::text[], $11::text[])
    )
    SELECT count(*)::int AS n FROM expired`,
  /** The tokens minted when these requests settled (`verdict_tokens`). */
  verdictTokens: 'SELECT request_id AS id, token FROM verdict_tokens WHERE request_id = ANY($1::text[])',
  events: `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE request_id = $1 ORDER BY id`,
  eventsOf: `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE request_id = ANY($1::text[]) ORDER BY request_id, id`,
  receiptsOf: `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE id IN (
    SELECT max(id) FROM confirmation_events WHERE request_id = ANY($1::text[]) AND ${RECEIPT_TYPES_SQL} GROUP BY request_id)`,
  messages: `SELECT ${selectList(channelMessages)} FROM channel_messages WHERE request_id = $1 ORDER BY id`,
  unsentMessages: `SELECT ${selectList(channelMessages, 'm')} FROM channel_messages m JOIN confirmation_requests r ON r.id = m.request_id
    WHERE m.status = 'pending' AND r.status = 'pending' ORDER BY m.id LIMIT $1`,
  pendingFirst: `SELECT id, expires_at AS "expiresAt" FROM confirmation_requests WHERE status = 'pending' ORDER BY expires_at, id LIMIT $1`,
  pendingAfter: `SELECT id, expires_at AS "expiresAt" FROM confirmation_requests WHERE status = 'pending'
    AND (expires_at > $1 OR (expires_at = $1 AND id > $2)) ORDER BY expires_at, id LIMIT $3`,
  /**
   * `pendingAfter` from `$1` (null: the first page), each row with whether its `created` event records a follow-up
   * plan. That event is the request's first (the create writes it first), read by `confirmation_events_request` in id
   * order: with `type = 'created'` in the condition instead, a planner without statistics yet (a replica starting
   * after a burst, before autovacuum's ANALYZE) took `confirmation_events_type` and read every created event for each
   * pending row — 0.67 s a page of 1,000 over 50,000 requests, against 17 ms now (test/integration/postgres/
   * pending-plans-plan.test.ts).
   */
  pendingPlans: `SELECT p.id, p.expires_at AS "expiresAt", coalesce((SELECT e.type = 'created' AND e.detail->'policy'->'follow_ups' IS NOT NULL
      FROM confirmation_events e WHERE e.request_id = p.id ORDER BY e.id LIMIT 1), false) AS planned
    FROM (SELECT id, expires_at FROM confirmation_requests WHERE status = 'pending'
      AND (expires_at > coalesce($1::timestamptz, '-infinity') OR (expires_at = $1 AND id > $2)) ORDER BY expires_at, id LIMIT $3) p
    ORDER BY p.expires_at, p.id`,
  countByStatus: 'SELECT status, count(*)::int AS n FROM confirmation_requests GROUP BY status',
  /**
   * Candidates of `newestSameCall` (`same-call.ts`), newest first: of the agent and tool's newest `$5` rows, those of
   * session `$3` whose hash is `$4`, or (`$6`) that have approved arguments. The window is read and filtered first
   * (a materialized CTE, in order from the `confirmation_requests_same_call` index, which holds session and hash too),
   * then only its candidates are read whole by primary key: written as `id IN (window) AND session … AND hash …`, the
   * planner filtered the whole table by session and hash instead (a parallel sequential scan, 68 ms on 200 000 rows).
   * The approved-arguments test needs the row, so without `$6` a row whose hash differs is dropped before it is read.
   * `$7` (a coding agent's call, `SameCallQuery.workspace`) leaves the session out; `same-call.ts` compares the workspace.
   */
  sameCall: `WITH w AS MATERIALIZED (
      SELECT id, created_at, session_id, args_sha256
      FROM confirmation_requests WHERE agent_id = $1 AND tool_name = $2 ORDER BY created_at DESC, id DESC LIMIT $5::int
    )
    SELECT ${RETURNING_REQUEST} FROM w JOIN confirmation_requests r ON r.id = w.id
    WHERE (w.session_id IS NOT DISTINCT FROM $3::text OR $7::boolean) AND (w.args_sha256 = $4 OR $6::boolean) AND (w.args_sha256 = $4 OR r.approved_args IS NOT NULL)
    ORDER BY w.created_at DESC, w.id DESC`,
};

// The store's own statements run as named prepared statements: PostgreSQL parses and plans each once per connection
// instead of on every call (the create CTE alone is a dozen tables and arrays to plan). Other SQL runs unnamed.
const STATEMENT_NAMES = new Map<string, string>(
  Object.entries(SQL_TEXT).map(([key, text]) => [text, `tollgate_${key}`]),
);

/** `sql` with its values, named when it is one of {@link SQL_TEXT}'s statements. */
export function named(sql: string, values: unknown[]): pg.QueryConfig {
  const name = STATEMENT_NAMES.get(sql);
  return name ? { name, text: sql, values } : { text: sql, values };
}

/** A pool, or one of its clients inside a transaction: what a statement runs on. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** Runs `sql` on `on` ({@link named} when it is one of the store's statements); rows come back typed as `T`. */
export async function rowsOf<T>(on: Queryable, sql: string, values: unknown[] = []): Promise<T[]> {
  return (await on.query(named(sql, values))).rows as T[];
}
