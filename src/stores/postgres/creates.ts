/**
 * @module stores/postgres/creates
 * The PostgreSQL store's batched create (see `group-commit.ts`): one statement for the creates of one event-loop turn,
 * and its three parameters.
 */
import { REQUEST_INSERT, requestRecords } from './rows.js';
import { createdEvent } from '../../requests/coverage.js';
import type { NewCreate } from '../../requests/store.js';
import type { NewEvent } from '../../requests/types.js';

/**
 * The creates of one batch in one statement, so one round trip and one commit: the rows (each unless its idempotency
 * key exists), their events in order (`created`, any extra, one `delivered` per card sent inline) and their card rows.
 * `$1`, `$2` and `$3` are JSON arrays of requests, events and cards ({@link createBatchParams}); returns the ids
 * inserted.
 *
 * The events arrive chained (migration 0010), so the chain's trigger skips them: each event's hashed text is built for
 * the whole batch at once from the values as stored (the request's fields from `RETURNING`, times at the columns'
 * millisecond precision); `tollgate_chain_reserve()` takes the chain's lock and reads its head; the recursive `chain`
 * then links each event to the previous hash, reading the texts from one array so each step costs the same however
 * large the batch. The hashes are the trigger's; the cost is one PL/pgSQL call per batch instead of two per event and
 * a lookup of the request. The lock is taken only when the batch inserts an event.
 */
export const CREATE_BATCH = `WITH RECURSIVE req AS (
    INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}
    ON CONFLICT ((coalesce(filed_by, '')), idempotency_key) DO NOTHING
    RETURNING id, tollgate_chain_request(tool_name, args_sha256, required_approvals::text, on_timeout, tollgate_chain_time(created_at),
      tollgate_chain_time(expires_at), user_id, agent_id, filed_by) AS chained
  ), src AS (
    SELECT row_number() OVER (ORDER BY e.ord) AS n, e.request_id, e.type, e.actor, e.channel, e.detail, e.at,
      tollgate_chain_body(e.request_id, e.type, e.actor, e.channel, e.detail_text, e.at_text, CASE WHEN e.type = 'created' THEN req.chained END) AS body
    FROM (
      SELECT e.*, e.detail::text AS detail_text, tollgate_chain_time(e.at) AS at_text
      FROM (SELECT e.request_id, e.type, e.actor, e.channel, e.detail, e.at::timestamptz(3) AS at, e.ord
        FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (request_id text, type text, actor text, channel text, detail jsonb, at timestamptz))
          WITH ORDINALITY AS e(request_id, type, actor, channel, detail, at, ord) OFFSET 0) AS e OFFSET 0
    ) AS e JOIN req ON req.id = e.request_id
  ), batch AS (
    SELECT count(*) AS total, array_agg(body ORDER BY n) AS body FROM src
  ), head AS (
    SELECT h.id, h.hash FROM batch, LATERAL tollgate_chain_reserve() AS h WHERE batch.total > 0
  ), chain(n, id, prev, hash) AS (
    SELECT 0::bigint, id, NULL::text, hash FROM head
    UNION ALL
    SELECT c.n + 1, c.id + 1, c.hash, tollgate_chain_link(c.hash, b.body[c.n + 1]) FROM chain c, batch b WHERE c.n < b.total
  ), ev AS (
    INSERT INTO confirmation_events (id, request_id, type, actor, channel, detail, at, prev_hash, hash)
    SELECT c.id, s.request_id, s.type, s.actor, s.channel, s.detail, s.at, c.prev, c.hash FROM src s JOIN chain c ON c.n = s.n ORDER BY s.n
  ), msg AS (
    INSERT INTO channel_messages (request_id, channel, target, status, attempts, updated_at)
    SELECT m.request_id, m.channel, m.target, m.status, 0, m.updated_at
    FROM jsonb_to_recordset($3::jsonb) AS m(request_id text, channel text, target text, status text, updated_at timestamptz)
    WHERE m.request_id IN (SELECT id FROM req)
    ON CONFLICT (request_id, channel, target) DO NOTHING
  )
  SELECT id FROM req`;

/** The parameters of {@link CREATE_BATCH} for `items`. */
export function createBatchParams(items: NewCreate[]): string[] {
  const events = items.flatMap(({ request, cards, extras }) =>
    [
      createdEvent(request, extras?.detail),
      ...(extras?.events ?? []),
      // A channel whose card is the row itself (the web inbox) is delivered the moment the row exists.
      ...cards
        .filter((c) => c.sent)
        .map((c): NewEvent => ({
          type: 'delivered',
          actor: null,
          channel: c.channel,
          detail: { target: c.target, message_ref: null, attempt: 0 },
          at: request.createdAt,
        })),
    ].map((e) => ({ request_id: request.id, ...e })),
  );
  const messages = items.flatMap(({ request, cards }) =>
    cards.map((c) => ({
      request_id: request.id,
      channel: c.channel,
      target: c.target,
      status: c.sent ? 'sent' : 'pending',
      updated_at: request.createdAt,
    })),
  );
  return [requestRecords(items.map((i) => i.request)), JSON.stringify(events), JSON.stringify(messages)];
}
