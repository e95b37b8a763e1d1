/**
 * @module stores/postgres/creates
 * The PostgreSQL store's batched create (see `group-commit.ts`): one statement for the creates of one event-loop turn,
 * and its parameters.
 */
import { REQUEST_INSERT, requestRecords } from './rows.js';
import { chainedFieldsOf, WitnessedWrite, type EventValues } from './witnessed.js';
import type { Witness } from '../../audit/witness.js';
import { createdEvent } from '../../requests/coverage.js';
import type { NewCreate } from '../../requests/store.js';
import type { NewEvent } from '../../requests/types.js';

/**
 * The creates of one batch in one statement, so one round trip and one commit: the rows, their events in order
 * (`created`, any extra, one `delivered` per card sent inline), their card rows, the batch's signed receipt and the
 * verdict tokens of rows a policy settled at filing. `$1`, `$2` and `$3` are JSON arrays of requests, events and
 * cards; `$4`…`$8` the receipt (null without a witness); `$9`, `$10` the tokens; `$11` the number of requests
 * ({@link createBatchParams}). Returns the ids inserted.
 *
 * Events are written with their leaves, computed from the values inserted (`witnessed.ts`), and no place in the chain:
 * no chain-wide lock, no head read; ids come from the column's sequence, the order from the integrator after commit.
 * The receipt signs every event of the batch, so the batch is all or nothing: a request whose idempotency key exists
 * makes the statement fail whole (`tollgate_all_created`, SQLSTATE TG409, migration 0023) and the store files the
 * batch one by one.
 */
export const CREATE_BATCH = `WITH req AS (
    INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}
    ON CONFLICT ((coalesce(filed_by, '')), idempotency_key) DO NOTHING
    RETURNING id
  ), ev AS (
    INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, leaf, receipt_id)
    SELECT e.request_id, e.type, e.actor, e.channel, e.detail::jsonb, e.at::timestamptz, e.leaf, e.receipt_id
    FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (request_id text, type text, actor text, channel text, detail text, at text, leaf text, receipt_id text))
      WITH ORDINALITY AS e(request_id, type, actor, channel, detail, at, leaf, receipt_id, ord)
    WHERE e.request_id IN (SELECT id FROM req) ORDER BY e.ord
  ), msg AS (
    INSERT INTO channel_messages (request_id, channel, target, status, attempts, updated_at)
    SELECT m.request_id, m.channel, m.target, m.status, 0, m.updated_at
    FROM jsonb_to_recordset($3::jsonb) AS m(request_id text, channel text, target text, status text, updated_at timestamptz)
    WHERE m.request_id IN (SELECT id FROM req)
    ON CONFLICT (request_id, channel, target) DO NOTHING
  ), receipt AS (
    INSERT INTO audit_receipts (id, kid, at, leaves, signature) SELECT $4, $5, $6, $7, $8 WHERE $4::text IS NOT NULL
  ), token AS (
    INSERT INTO verdict_tokens (request_id, token)
    SELECT t.request_id, t.token FROM unnest($9::text[], $10::text[]) AS t(request_id, token) WHERE t.request_id IN (SELECT id FROM req)
  )
  SELECT req.id FROM (SELECT tollgate_all_created(count(*), $11) AS ok FROM req) k JOIN req ON k.ok`;

/** The SQLSTATE `tollgate_all_created` raises: a request of the batch met an existing idempotency key. */
export const CREATE_CONFLICT = 'TG409';

/** The parameters of {@link CREATE_BATCH} for `items`, witnessed by `witness` (null: unsigned). */
export function createBatchParams(items: NewCreate[], witness: Witness | null): unknown[] {
  const write = new WitnessedWrite(witness);
  const events: EventValues[] = [];
  for (const { request, cards, extras } of items) {
    events.push(write.event(request.id, createdEvent(request, extras?.detail), chainedFieldsOf(request)));
    // A request a policy settled at filing carries its verdict from the start.
    if (request.status !== 'pending') write.mint(request);
    for (const e of extras?.events ?? []) events.push(write.event(request.id, e));
    // A channel whose card is the row itself (the web inbox) is delivered the moment the row exists.
    for (const c of cards.filter((card) => card.sent)) {
      const delivered: NewEvent = {
        type: 'delivered',
        actor: null,
        channel: c.channel,
        detail: { target: c.target, message_ref: null, attempt: 0 },
        at: request.createdAt,
      };
      events.push(write.event(request.id, delivered));
    }
  }
  const messages = items.flatMap(({ request, cards }) =>
    cards.map((c) => ({
      request_id: request.id,
      channel: c.channel,
      target: c.target,
      status: c.sent ? 'sent' : 'pending',
      updated_at: request.createdAt,
    })),
  );
  return [
    requestRecords(items.map((i) => i.request)),
    JSON.stringify(events),
    JSON.stringify(messages),
    ...write.receiptParams(),
    ...write.tokenParams(),
    items.length,
  ];
}
