/**
 * @module bench/seed-postgres
 * {@link seedHistory} on PostgreSQL, fast: batches of requests, events and cards, each batch one transaction of three
 * set-based INSERTs (`jsonb_populate_recordset`). The events' ids and chain hashes are computed here, continuing the
 * chain from its head, with the audit chain's trigger disabled only inside each batch's transaction (it would take the
 * chain's lock and read the head once per event); the hashes are the ones the trigger would have written
 * (`src/audit/encoding.ts`: `detail` as jsonb prints it, times as `tollgate_chain_time` does), so `tollgate audit
 * verify` walks the seeded chain like any other. Into an empty database the secondary indexes are built after the rows.
 */
import type pg from 'pg';
import { eventHash, GENESIS_HASH } from '../src/audit/encoding.js';
import { applyPostgresMigrations, openPostgres } from '../src/requests/postgres/database.js';
import { REQUEST_INSERT, requestRecords } from '../src/requests/postgres/rows.js';
import type { ConfirmationRequest } from '../src/requests/types.js';
import { chainedFields, historyPlan, historyRow, type HistorySeed, type HistorySeedOptions } from './seed.js';

/** A flat JSON object as PostgreSQL's jsonb prints it (`{"a": "b"}`): what the chain's trigger hashes. */
function jsonbText(detail: Record<string, string>): string {
  const entries = Object.entries(detail).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
}

const SEEDED_TABLES = ['confirmation_requests', 'confirmation_events', 'channel_messages'];

/** Drops the seeded tables' indexes that back no constraint; resolves with the statements that create them again. */
async function dropSecondaryIndexes(client: Pick<pg.PoolClient, 'query'>): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relname = ANY($1) AND t.relnamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [SEEDED_TABLES],
  );
  for (const { name } of rows) await client.query(`DROP INDEX ${name}`);
  return rows.map((r) => r.definition);
}

/** Writes the history {@link historyRow} describes into the PostgreSQL database at `url` (migrating it first). */
export async function seedHistoryPostgres(url: string, options: HistorySeedOptions): Promise<HistorySeed> {
  const started = performance.now();
  const p = historyPlan({ batch: 5000, ...options });
  const open = openPostgres(url, { poolSize: 1 });
  try {
    await applyPostgresMigrations(open);
    const client = await open.pool.connect();
    try {
      const head = await client.query<{ id: string; hash: string }>('SELECT id, hash FROM confirmation_events ORDER BY id DESC LIMIT 1');
      let lastId = Number(head.rows[0]?.id ?? 0);
      let lastHash = head.rows[0]?.hash ?? GENESIS_HASH;
      // Into empty tables, the secondary indexes are built once at the end (far cheaper than row by row), then restored as they were.
      const rebuild = lastId === 0 ? await dropSecondaryIndexes(client) : [];
      let pending = 0;
      let events = 0;
      for (let start = 0; start < p.rows; start += p.batch) {
        const requests: ConfirmationRequest[] = [];
        const eventRecords: Record<string, unknown>[] = [];
        const cards: Record<string, unknown>[] = [];
        for (let i = start; i < Math.min(p.rows, start + p.batch); i++) {
          const { request, events: own } = historyRow(i, p);
          requests.push(request);
          if (request.status === 'pending') pending++;
          for (const e of own) {
            const detail = jsonbText(e.detail);
            const at = e.at.toISOString();
            const hash = eventHash(lastHash, { requestId: request.id, type: e.type, actor: e.actor, channel: e.channel, detail, at, request: e.type === 'created' ? chainedFields(request) : null });
            eventRecords.push({ id: ++lastId, request_id: request.id, type: e.type, actor: e.actor, channel: e.channel, detail: e.detail, at, prev_hash: lastHash, hash });
            lastHash = hash;
          }
          cards.push({ request_id: request.id, channel: 'web', target: '', message_ref: null, status: 'sent', attempts: 1, last_error: null, updated_at: request.createdAt.toISOString() });
        }
        events += eventRecords.length;
        await client.query('BEGIN');
        try {
          // Transactional: the trigger is off for this batch's inserts only, and on again before anyone else can insert.
          await client.query('ALTER TABLE confirmation_events DISABLE TRIGGER confirmation_events_chain');
          await client.query(`INSERT INTO confirmation_requests (${REQUEST_INSERT.columns}) ${REQUEST_INSERT.fromRecords}`, [requestRecords(requests)]);
          await client.query(
            `INSERT INTO confirmation_events (id, request_id, type, actor, channel, detail, at, prev_hash, hash) OVERRIDING SYSTEM VALUE
             SELECT id, request_id, type, actor, channel, detail, at, prev_hash, hash FROM jsonb_populate_recordset(NULL::confirmation_events, $1::jsonb)`,
            [JSON.stringify(eventRecords)],
          );
          await client.query(
            `INSERT INTO channel_messages (request_id, channel, target, message_ref, status, attempts, last_error, updated_at)
             SELECT request_id, channel, target, message_ref, status, attempts, last_error, updated_at FROM jsonb_populate_recordset(NULL::channel_messages, $1::jsonb)`,
            [JSON.stringify(cards)],
          );
          await client.query('ALTER TABLE confirmation_events ENABLE TRIGGER confirmation_events_chain');
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
      for (const definition of rebuild) await client.query(definition);
      // Fresh statistics, as autovacuum would have gathered over a year: the planner must not take 10 M rows for empty.
      await client.query('ANALYZE confirmation_requests');
      await client.query('ANALYZE confirmation_events');
      await client.query('ANALYZE channel_messages');
      return { rows: p.rows, pending, events, from: historyRow(0, p).request.createdAt, to: new Date(p.now), seconds: (performance.now() - started) / 1000 };
    } finally {
      client.release();
    }
  } finally {
    await open.close();
  }
}
