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
 */
export const CREATE_BATCH = `WITH req AS (
    INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}
    ON CONFLICT (idempotency_key) DO NOTHING RETURNING id
  ), ev AS (
    INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at)
    SELECT e.request_id, e.type, e.actor, e.channel, e.detail, e.at
    FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (request_id text, type text, actor text, channel text, detail jsonb, at timestamptz))
      WITH ORDINALITY AS e(request_id, type, actor, channel, detail, at, ord)
    WHERE e.request_id IN (SELECT id FROM req) ORDER BY e.ord
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
