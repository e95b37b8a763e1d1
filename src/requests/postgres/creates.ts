/**
 * @module requests/postgres/creates
 * The PostgreSQL store's batched create (see `group-commit.ts`): one statement for the creates of one event-loop turn,
 * and its three parameters.
 */
import { REQUEST_INSERT, requestRecords } from './rows.js';
import type { NewCreate } from '../store.js';
import type { NewEvent } from '../types.js';

/**
 * The creates of one batch in one statement, so one round trip and one commit: the rows (each unless its idempotency
 * key exists), their events in order (`created`, any extra, one `delivered` per card sent inline) and their card rows.
 * `$1`, `$2` and `$3` are JSON arrays of requests, events and cards ({@link createBatchParams}); returns the ids
 * inserted.
 *
 * The events arrive chained (migration 0010): `tollgate_chain_reserve()` takes the chain's lock and reads its head,
 * then the recursive `chain` hashes each event after the previous one with the values as stored (the request's
 * fields from `RETURNING`, times at the columns' millisecond precision), so the chain's trigger skips them. That is
 * the trigger's hash, one PL/pgSQL call per batch instead of two per event and a lookup of the request. The lock is
 * taken only when the batch inserts an event.
 */
export const CREATE_BATCH = `WITH RECURSIVE req AS (
    INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING id, tollgate_chain_request(tool_name, args_sha256, required_approvals, on_timeout, created_at, expires_at, user_id, agent_id, filed_by) AS chained
  ), src AS (
    SELECT row_number() OVER (ORDER BY e.ord) AS n, e.request_id, e.type, e.actor, e.channel, e.detail, e.at::timestamptz(3) AS at,
      CASE WHEN e.type = 'created' THEN req.chained END AS request
    FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (request_id text, type text, actor text, channel text, detail jsonb, at timestamptz))
      WITH ORDINALITY AS e(request_id, type, actor, channel, detail, at, ord)
    JOIN req ON req.id = e.request_id
  ), head AS (
    SELECT h.id, h.hash FROM (SELECT FROM src LIMIT 1) AS any_event, LATERAL tollgate_chain_reserve() AS h
  ), chain(n, id, hash) AS (
    SELECT 0::bigint, id, hash FROM head
    UNION ALL
    SELECT s.n, chain.id + 1, tollgate_chain_digest(chain.hash, s.request_id, s.type, s.actor, s.channel, s.detail, s.at, s.request)
    FROM chain JOIN src s ON s.n = chain.n + 1
  ), ev AS (
    INSERT INTO confirmation_events (id, request_id, type, actor, channel, detail, at, prev_hash, hash)
    SELECT c.id, s.request_id, s.type, s.actor, s.channel, s.detail, s.at, p.hash, c.hash
    FROM src s JOIN chain c ON c.n = s.n JOIN chain p ON p.n = s.n - 1 ORDER BY s.n
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
      { type: 'created', actor: request.userId, channel: null, detail: extras?.detail ?? {}, at: request.createdAt },
      ...(extras?.events ?? []),
      // A channel whose card is the row itself (the web inbox) is delivered the moment the row exists.
      ...cards.filter((c) => c.sent).map((c): NewEvent => ({ type: 'delivered', actor: null, channel: c.channel, detail: { target: c.target, message_ref: null, attempt: 0 }, at: request.createdAt })),
    ].map((e) => ({ request_id: request.id, ...e })),
  );
  const messages = items.flatMap(({ request, cards }) =>
    cards.map((c) => ({ request_id: request.id, channel: c.channel, target: c.target, status: c.sent ? 'sent' : 'pending', updated_at: request.createdAt })),
  );
  return [requestRecords(items.map((i) => i.request)), JSON.stringify(events), JSON.stringify(messages)];
}
