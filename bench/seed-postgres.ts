/**
 * @module bench/seed-postgres
 * {@link seedHistory} on PostgreSQL, fast: the server generates the rows itself (`generate_series`), one statement per
 * batch of requests that inserts the requests, their events and their cards, so nothing is built in Node or sent over
 * the wire (the previous seeder sent JSON batches and wrote ~2k requests/s; 10 million took over an hour).
 *
 * The rows are the ones {@link historyRow} describes (same tools, agents, approvers, statuses, times and events), with
 * ids that are UUIDv7 of the row's millisecond. The audit chain is computed, not skipped, as the integrator would place
 * the events (`audit/leaf.ts`): each event's leaf is built set-based (its length-prefixed fields spelled out for the
 * seed's ASCII values, the detail as canonical JSON), and the links are a running aggregate over the events in order
 * (the chain hash folded by a window function), starting from the integrator's head (`chain_head`, locked). A seeded
 * history is the database's legacy part, written without receipts: the head is set to its end and its `legacy` to
 * the newest id, so the first gateway signs the `legacy` checkpoint over it (as `markSeededLegacy` on SQLite), and
 * `tollgate audit verify` walks it like any other. Into an empty database the secondary indexes are built after the
 * rows.
 */
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { applyPostgresMigrations, openPostgres } from '../src/stores/postgres/database.js';
import { historyPlan, historyRow, type HistorySeed, type HistorySeedOptions } from './seed.js';

const SEEDED_TABLES = ['confirmation_requests', 'confirmation_events', 'channel_messages'];

/**
 * Drops the seeded tables' indexes that back no constraint, and their foreign keys (each checked row by row by a
 * trigger, which cost the seeding as much as the inserts); resolves with the statements that create them again (a
 * foreign key added back is validated in one join over the whole table).
 */
async function dropSecondaryIndexes(client: Pick<pg.PoolClient, 'query'>): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
      WHERE t.relname = ANY($1) AND t.relnamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [SEEDED_TABLES],
  );
  for (const { name } of rows) await client.query(`DROP INDEX ${name}`);
  const foreign = await client.query<{ name: string; on: string; definition: string }>(
    `SELECT c.conname AS name, c.conrelid::regclass::text AS on, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
      WHERE c.contype = 'f' AND t.relname = ANY($1) AND t.relnamespace = 'public'::regnamespace`,
    [SEEDED_TABLES],
  );
  for (const { name, on } of foreign.rows) await client.query(`ALTER TABLE ${on} DROP CONSTRAINT "${name}"`);
  return [
    ...rows.map((r) => r.definition),
    ...foreign.rows.map((f) => `ALTER TABLE ${f.on} ADD CONSTRAINT "${f.name}" ${f.definition}`),
  ];
}

/**
 * The chain's fold, for this session only (`pg_temp`): the state is the last hash, each event's leaf links to it, and
 * the first link of a batch starts from the head passed beside the leaf. Used as a running window aggregate, it gives
 * every event's hash in one pass.
 */
const CHAIN_AGGREGATE = [
  // PL/pgSQL, not SQL: an aggregate's SQL transition function is not inlined, and cost twice as much per event.
  `CREATE FUNCTION pg_temp.tollgate_seed_link(state text, leaf text, head text) RETURNS text LANGUAGE plpgsql STABLE AS
     $$ BEGIN RETURN encode(sha256(convert_to('tollgate-chain-v2' || chr(10) || coalesce(state, head) || chr(10) || leaf, 'UTF8')), 'hex'); END $$`,
  'CREATE AGGREGATE pg_temp.tollgate_seed_chain(text, text) (SFUNC = pg_temp.tollgate_seed_link, STYPE = text)',
];

/**
 * Requests `$1` to `$2 - 1` of the plan in `$3`… (see {@link seedHistoryPostgres}), their events and cards, in one
 * statement; returns how many of them are pending and how many events were written. The expressions are
 * {@link historyRow}'s: `args_sha256` is the SHA-256 of the canonical JSON `argsSha256` hashes; times are whole
 * milliseconds added to the epoch (exact, so the stored `timestamptz(3)` and the hashed text agree).
 */
const SEED_BATCH = `WITH base AS MATERIALIZED (
    SELECT g.i, a.k, a.pending, b.status, b.created_at, c.by_person,
      -- As the SQLite seeder's ids: the row's millisecond, this run's salt, the row's number (unique, in creation order).
      substr(a.h, 1, 8) || '-' || substr(a.h, 9, 4) || '-7' || substr($11::text, 1, 3) || '-8' || substr($11::text, 4, 3) || '-' || lpad(to_hex(g.i), 12, '0') AS id,
      'tool.' || g.i % $6::int AS tool_name, 'agent-' || g.i % $7::int AS agent_id,
      encode(sha256(convert_to('{"tool_args":{"rows":' || g.i % 1000 || ',"table":"t' || g.i % 997 || '"},"tool_name":"tool.' || g.i % $6::int || '"}', 'UTF8')), 'hex') AS args_sha256,
      CASE WHEN a.pending THEN timestamptz 'epoch' + ($4::bigint + 3600000 + (g.i * 7919) % 3600000) * interval '1 millisecond'
        ELSE b.created_at + interval '300 seconds' END AS expires_at,
      CASE WHEN a.pending THEN NULL ELSE b.created_at + interval '30 seconds' END AS responded_at,
      CASE WHEN a.pending THEN NULL WHEN c.by_person THEN 'slack:U' || a.k WHEN b.status = 'expired' THEN 'system' ELSE 'agent-' || g.i % $7::int END AS responded_by
    FROM generate_series($1::bigint, $2::bigint - 1) AS g(i)
    CROSS JOIN LATERAL (SELECT CASE WHEN $10::boolean THEN $4::bigint - 3600000 + (g.i * 3600000) / $3::bigint
        ELSE $4::bigint - $5::bigint + (g.i * $5::bigint) / $3::bigint - 60000 END AS ms) m
    CROSS JOIN LATERAL (SELECT lpad(to_hex(m.ms), 12, '0') AS h, g.i % $8::int AS k, $10::boolean OR g.i % $9::int = $9::int - 1 AS pending) a
    CROSS JOIN LATERAL (SELECT
        CASE WHEN a.pending THEN 'pending' ELSE (ARRAY['approved', 'approved', 'denied', 'expired', 'cancelled'])[g.i % 5 + 1] END AS status,
        timestamptz 'epoch' + m.ms * interval '1 millisecond' AS created_at) b
    CROSS JOIN LATERAL (SELECT b.status IN ('approved', 'denied') AS by_person) c
  ), req AS (
    INSERT INTO confirmation_requests (id, status, tool_name, tool_args, approved_args, prompt, options, agent_id, user_id, session_id,
      tool_call_id, metadata, channels, approvers, required_approvals, on_timeout, idempotency_key, args_sha256, callback_url, filed_by,
      filed_by_person, nonce, created_at, expires_at, updated_at, responded_at, responded_by, responded_via, responded_by_person,
      decision_option, reason, allowed)
    SELECT id, status, tool_name, jsonb_build_object('table', 't' || i % 997, 'rows', i % 1000), NULL, 'Export a table to a file.',
      '["Approve", "Deny"]'::jsonb, agent_id, NULL, 'session-' || i, NULL, '{}'::jsonb, '[{"type": "web"}]'::jsonb,
      jsonb_build_array('web:alice', 'slack:U' || k), 1, 'deny', NULL, args_sha256, NULL, NULL, NULL,
      -- The buttons' secret: 18 random bytes as base64url, as newConfirmationRequest makes it.
      translate(encode(uuid_send(gen_random_uuid()) || substring(uuid_send(gen_random_uuid()) FROM 1 FOR 2), 'base64'), '+/', '-_'),
      created_at, expires_at, coalesce(responded_at, created_at), responded_at, responded_by, CASE WHEN by_person THEN 'slack' END,
      CASE WHEN by_person THEN 'p' || k END, CASE status WHEN 'approved' THEN 'Approve' WHEN 'denied' THEN 'Deny' END, NULL,
      CASE WHEN NOT pending THEN status = 'approved' END
    FROM base
  ), head AS (
    SELECT size, hash FROM chain_head WHERE id = 1 FOR UPDATE
  ), src AS (
    SELECT row_number() OVER (ORDER BY b.i, e.seq) AS n, b.id AS request_id, e.type, e.actor, e.channel, e.detail::jsonb AS detail, e.at,
      -- The leaf's fields, spelled out: every seeded value is ASCII, so its length is its byte count, and the ids' and
      -- times' lengths are fixed (a generic convert_to per field cost a third of the seed).
      encode(sha256(convert_to('tollgate-leaf-v1' || chr(10) || '36:' || b.id || ';' || length(e.type) || ':' || e.type || ';' || coalesce(length(e.actor) || ':' || e.actor || ';', '-;')
        || coalesce(length(e.channel) || ':' || e.channel || ';', '-;') || length(e.detail) || ':' || e.detail || ';'
        || '24:' || e.at_text || ';' || CASE WHEN e.seq = 0 THEN
          length(b.tool_name) || ':' || b.tool_name || ';64:' || b.args_sha256 || ';1:1;4:deny;24:' || t.created_text || ';24:'
            || tollgate_chain_time(b.expires_at) || ';-;' || length(b.agent_id) || ':' || b.agent_id || ';-;'
          ELSE '-;' END, 'UTF8')), 'hex') AS leaf
    FROM base b
    CROSS JOIN LATERAL (SELECT tollgate_chain_time(b.created_at) AS created_text) t
    CROSS JOIN LATERAL (VALUES
        (0, 'created', NULL, NULL, '{}', b.created_at, t.created_text),
        -- Details as canonical JSON (keys sorted, no spaces): the text the leaf covers.
        (1, b.status, b.responded_by, CASE WHEN b.by_person THEN 'slack' END,
          CASE b.status WHEN 'expired' THEN '{"on_timeout":"deny"}' WHEN 'cancelled' THEN '{}' ELSE '{"person":"p' || b.k || '"}' END,
          b.responded_at, tollgate_chain_time(b.responded_at))
      ) AS e(seq, type, actor, channel, detail, at, at_text)
    WHERE e.seq = 0 OR NOT b.pending
  ), chained AS (
    SELECT s.*, pg_temp.tollgate_seed_chain(s.leaf, h.hash) OVER (ORDER BY s.n ROWS UNBOUNDED PRECEDING) AS hash, h.size AS head_size, h.hash AS head_hash
    FROM src s, head h
  ), ev AS (
    INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at, prev_hash, hash, seq, leaf)
    SELECT request_id, type, actor, channel, detail, at, coalesce(lag(hash) OVER (ORDER BY n), head_hash), hash, head_size + n, leaf FROM chained ORDER BY n
    RETURNING 1
  ), moved AS (
    UPDATE chain_head SET size = h.size + (SELECT count(*) FROM src),
      hash = coalesce((SELECT hash FROM chained ORDER BY n DESC LIMIT 1), h.hash)
    FROM head h WHERE chain_head.id = 1
  ), msg AS (
    INSERT INTO channel_messages (request_id, channel, target, message_ref, status, attempts, last_error, updated_at)
    SELECT id, 'web', '', NULL, 'sent', 1, NULL, created_at FROM base
  )
  SELECT (SELECT count(*) FROM base WHERE pending) AS pending, (SELECT count(*) FROM ev) AS events`;

/** Writes the history {@link historyRow} describes into the PostgreSQL database at `url` (migrating it first). */
export async function seedHistoryPostgres(url: string, options: HistorySeedOptions): Promise<HistorySeed> {
  const started = performance.now();
  const p = historyPlan({ batch: 100_000, ...options });
  const open = openPostgres(url, { poolSize: 1 });
  try {
    await applyPostgresMigrations(open);
    const client = await open.pool.connect();
    try {
      // A bench seed may lose its last batches in a crash (it is redone from scratch anyway): no flush per commit.
      await client.query('SET synchronous_commit = off');
      // A batch's events are sorted twice (their order, then the chain's): in memory, not in temporary files.
      await client.query("SET work_mem = '256MB'");
      for (const statement of CHAIN_AGGREGATE) await client.query(statement);
      const empty = (await client.query('SELECT 1 FROM confirmation_events LIMIT 1')).rowCount === 0;
      // Into empty tables, the secondary indexes are built once at the end (far cheaper than row by row), then restored as they were.
      const rebuild = empty ? await dropSecondaryIndexes(client) : [];
      // Distinguishes this run's ids from an earlier seeding's in the same database (the pending rows added to a history).
      const salt = randomBytes(8).toString('hex');
      let pending = 0;
      let events = 0;
      for (let start = 0; start < p.rows; start += p.batch) {
        const end = Math.min(p.rows, start + p.batch);
        const { rows } = await client.query<{ pending: string; events: string }>(SEED_BATCH, [
          start,
          end,
          p.rows,
          p.now,
          p.span,
          p.tools,
          p.agents,
          p.approvers,
          p.pendingEvery,
          p.pendingOnly,
          salt,
        ]);
        pending += Number(rows[0]!.pending);
        events += Number(rows[0]!.events);
      }
      for (const definition of rebuild) await client.query(definition);
      // The rows are built in SQL, without the digest of what was asked that the gateway writes on a created event, and
      // without receipts (docs/audit.md): the seeded history is the database's legacy part, closed by the first
      // gateway's signed `legacy` checkpoint (only before the first checkpoint, as on SQLite).
      await client.query(
        'UPDATE chain_head SET legacy = (SELECT max(id) FROM confirmation_events) WHERE id = 1 AND checkpoint = 0',
      );
      // Fresh statistics, as autovacuum would have gathered over a year: the planner must not take 10 M rows for empty.
      for (const table of SEEDED_TABLES) await client.query(`ANALYZE ${table}`);
      return {
        rows: p.rows,
        pending,
        events,
        from: historyRow(0, p).request.createdAt,
        to: new Date(p.now),
        seconds: (performance.now() - started) / 1000,
      };
    } finally {
      client.release();
    }
  } finally {
    await open.close();
  }
}
