/**
 * @module stores/sqlite/statements
 * The store's hot-path SQL, prepared once per connection. Building a drizzle query and preparing it again on every
 * call cost ~450 µs of CPU per read; a prepared statement costs ~30 µs (see `bench/micro/store.ts`). Column lists are
 * derived from the drizzle schema, so the two cannot drift; rows come back with the schema's camelCase keys, except
 * the statements that read whole requests: those are raw (arrays, read with `requestOfValues`).
 */
import type Database from 'better-sqlite3';
import { getTableColumns, type Table } from 'drizzle-orm';
import { channelMessages, confirmationEvents, confirmationRequests } from './schema.js';
import { RECEIPT_TYPES_SQL } from '../../requests/receipts.js';
import type { TimeoutPolicy } from '../../requests/types.js';
import { RECEIPT_COLUMNS } from '../../audit/read-back.js';

/** `"tool_name" AS "toolName", …` for every column of `table` (each as `alias."tool_name"` when given). */
export function selectList(table: Table, alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  return Object.entries(getTableColumns(table))
    .map(([key, column]) => `${prefix}"${column.name}" AS "${key}"`)
    .join(', ');
}

/** What a vote is planned on (`Statements.voteState`): times as stored (ISO text). */
export interface VoteState {
  status: string;
  expiresAt: string;
  requiredApprovals: number;
  onTimeout: TimeoutPolicy;
  createdAt: string;
}

/** Every prepared statement of one connection. */
export interface Statements {
  requestById: Database.Statement;
  /** The columns a vote is planned on, by id: status, deadline, quorum, on-timeout and `created_at` (as stored). */
  voteState: Database.Statement;
  requestsByIds: Database.Statement;
  requestByKey: Database.Statement;
  insertRequest: Database.Statement;
  insertMessage: Database.Statement;
  approvers: Database.Statement;
  /** `(person, request created_at, request id)` of an approval short of the quorum (`confirmation_voters`). */
  recordVoter: Database.Statement;
  touch: Database.Statement;
  flip: Database.Statement;
  expireDue: Database.Statement;
  events: Database.Statement;
  eventsOf: Database.Statement;
  receiptsOf: Database.Statement;
  /**
   * Every receipt of the requests whose ids lie between two ids (`?`, `?`), by request and in order, at most `?`.
   * Request ids are UUIDv7, so an export page's ids lie in a narrow range and this one walk finds their receipts.
   */
  receiptsBetween: Database.Statement;
  pendingPlans: Database.Statement;
  messages: Database.Statement;
  unsentMessages: Database.Statement;
  pendingFirst: Database.Statement;
  pendingAfter: Database.Statement;
  countByStatus: Database.Statement;
  sameCall: Database.Statement;
  ping: Database.Statement;
}

/** Prepares the store's statements on `sqlite`. */
export function prepareStatements(sqlite: Database.Database): Statements {
  const requestColumns = getTableColumns(confirmationRequests);
  const requests = selectList(confirmationRequests);
  const insertColumns = Object.values(requestColumns)
    .map((c) => `"${c.name}"`)
    .join(', ');
  const insertValues = Object.keys(requestColumns)
    .map(() => '?')
    .join(', ');
  return {
    requestById: sqlite.prepare(`SELECT ${requests} FROM confirmation_requests WHERE id = ?`).raw(),
    voteState: sqlite.prepare(
      'SELECT status, expires_at AS expiresAt, required_approvals AS requiredApprovals, on_timeout AS onTimeout, created_at AS createdAt FROM confirmation_requests WHERE id = ?',
    ),
    /** `?` is a JSON array of request ids. */
    requestsByIds: sqlite
      .prepare(`SELECT ${requests} FROM confirmation_requests WHERE id IN (SELECT value FROM json_each(?))`)
      .raw(),
    requestByKey: sqlite
      .prepare(`SELECT ${requests} FROM confirmation_requests WHERE coalesce(filed_by, '') = ? AND idempotency_key = ?`)
      .raw(),
    // Positional (`requestRowValues`): bound from an object, each of the 35 names was looked up on it (10 % of a create).
    insertRequest: sqlite.prepare(`INSERT INTO confirmation_requests (${insertColumns}) VALUES (${insertValues})`),
    insertMessage: sqlite.prepare(
      'INSERT INTO channel_messages (request_id, channel, target, status, message_ref, attempts, updated_at) VALUES (?, ?, ?, ?, NULL, 0, ?) ON CONFLICT DO NOTHING',
    ),
    // `+type`: without the plus SQLite walks every approval ever recorded through the type index (each decision got
    // slower as approvals piled up: 10,000 decisions took 25 s); with it, the request's own events by its index.
    // The person of each approval (`detail.person`; an event written before the directory counts as its account's).
    // With what a quorum checks each one by (`audit/witnessed-approvals.ts`): its columns and its receipt.
    approvers: sqlite.prepare(
      `SELECT e.actor, coalesce(json_extract(e.detail, '$.person'), e.actor) AS person, json_extract(e.detail, '$.on_behalf_of') AS onBehalfOf,
         e.request_id AS requestId, e.type, e.channel, e.detail, e.at, ${RECEIPT_COLUMNS}
       FROM confirmation_events e LEFT JOIN audit_receipts r ON r.id = e.receipt_id WHERE e.request_id = ? AND +e.type = 'approved' ORDER BY e.id`,
    ),
    recordVoter: sqlite.prepare(
      'INSERT OR IGNORE INTO confirmation_voters (person, request_created_at, request_id) VALUES (?, ?, ?)',
    ),
    touch: sqlite.prepare('UPDATE confirmation_requests SET updated_at = ? WHERE id = ?'),
    /**
     * The compare-and-set: only a pending row changes. Positional, in this order: status, at (twice), responded_by,
     * responded_via, responded_by_person, on_behalf_of, decision_option, reason, approved_args, allowed, id.
     */
    flip: sqlite
      .prepare(
        `UPDATE confirmation_requests SET status = ?, responded_at = ?, updated_at = ?, responded_by = ?,
         responded_via = ?, responded_by_person = ?, on_behalf_of = ?, decision_option = ?, reason = ?, approved_args = ?,
         allowed = ?
       WHERE id = ? AND status = 'pending' RETURNING ${requests}`,
      )
      .raw(),
    /** Every pending row due at `?`, oldest first, at most `?` of them, expired in one statement. */
    // `+status`: without the plus SQLite drives the update from the status index, visiting every pending row for each
    // batch (100 000 pending rows made expiring 10 000 of them take 1.8 s); with it, each row is found by its id.
    expireDue: sqlite
      .prepare(
        `UPDATE confirmation_requests SET status = 'expired', responded_at = @at, updated_at = @at, responded_by = 'system',
         responded_via = NULL, allowed = CASE on_timeout WHEN 'approve' THEN 1 ELSE 0 END
       WHERE id IN (SELECT id FROM confirmation_requests WHERE status = 'pending' AND expires_at <= @now ORDER BY expires_at LIMIT @limit)
         AND +status = 'pending'
       RETURNING ${requests}`,
      )
      .raw(),
    events: sqlite.prepare(
      `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE request_id = ? ORDER BY id`,
    ),
    /** `?` is a JSON array of request ids. */
    eventsOf: sqlite.prepare(
      `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE request_id IN (SELECT value FROM json_each(?)) ORDER BY request_id, id`,
    ),
    /** `?` is a JSON array of request ids: each one's latest receipt (the newest `executed` / `execution_failed`). */
    // `+type`: not the type index. Without statistics SQLite searched confirmation_events_type, reading every receipt
    // ever written for each page of an export, instead of the page's requests' few events by confirmation_events_request.
    receiptsOf: sqlite.prepare(
      `SELECT ${selectList(confirmationEvents)} FROM confirmation_events WHERE id IN (
         SELECT max(id) FROM confirmation_events INDEXED BY confirmation_events_receipts
         WHERE request_id IN (SELECT value FROM json_each(?)) AND ${RECEIPT_TYPES_SQL} GROUP BY request_id)`,
    ),
    receiptsBetween: sqlite.prepare(
      `SELECT ${selectList(confirmationEvents)} FROM confirmation_events INDEXED BY confirmation_events_receipts
       WHERE request_id BETWEEN ? AND ? AND ${RECEIPT_TYPES_SQL} ORDER BY request_id, id LIMIT ?`,
    ),
    messages: sqlite.prepare(
      `SELECT ${selectList(channelMessages)} FROM channel_messages WHERE request_id = ? ORDER BY id`,
    ),
    unsentMessages: sqlite.prepare(
      `SELECT ${selectList(channelMessages).replace(/"([a-z_]+)" AS/g, 'm."$1" AS')} FROM channel_messages m JOIN confirmation_requests r ON r.id = m.request_id
       WHERE m.status = 'pending' AND r.status = 'pending' LIMIT ?`,
    ),
    pendingFirst: sqlite.prepare(
      "SELECT id, expires_at AS expiresAt FROM confirmation_requests WHERE status = 'pending' ORDER BY expires_at, id LIMIT ?",
    ),
    pendingAfter: sqlite.prepare(
      "SELECT id, expires_at AS expiresAt FROM confirmation_requests WHERE status = 'pending' AND (expires_at > @after OR (expires_at = @after AND id > @afterId)) ORDER BY expires_at, id LIMIT @limit",
    ),
    /** `pendingAfter` from `@after` (`''` for the first page), each row with whether its `created` event records a follow-up plan. */
    // `+type`, as in `approvers`: the type index must never drive this (a draft written as `request_id IN (json_each)`
    // got it: every `created` event walked per page, 24 ms a page of 1,000 on 100,000 rows against 0.6 ms).
    pendingPlans: sqlite.prepare(
      `SELECT p.id, p.expires_at AS expiresAt, EXISTS (SELECT 1 FROM confirmation_events e WHERE e.request_id = p.id AND +e.type = 'created'
           AND json_extract(e.detail, '$.policy.follow_ups') IS NOT NULL) AS planned
       FROM (SELECT id, expires_at FROM confirmation_requests WHERE status = 'pending' AND (expires_at > @after OR (expires_at = @after AND id > @afterId))
         ORDER BY expires_at, id LIMIT @limit) p
       ORDER BY p.expires_at, p.id`,
    ),
    /**
     * Candidates of `newestSameCall` (`same-call.ts`), newest first: of the agent and tool's newest `@window` rows, those
     * of the session whose hash matches, or (`@also`) that have approved arguments. The window is read, in order, from
     * the `confirmation_requests_same_call` index alone (it holds session and hash too) as a co-routine whose order the
     * outer `ORDER BY` reuses: no table row is read to cut it and nothing is sorted (`id IN (window) … ORDER BY` sorted
     * twice in temporary b-trees). Only candidates are read whole, by id; the approved-arguments test needs the row, so
     * it is split in two, and without `@also` a row whose hash differs is dropped before its row is read. `@anySession`
     * (a coding agent's call, `SameCallQuery.workspace`) leaves the session out; `same-call.ts` compares the workspace.
     */
    sameCall: sqlite.prepare(
      `SELECT ${selectList(confirmationRequests, 'r')} FROM (
         SELECT id, created_at, session_id, args_sha256 FROM confirmation_requests
         WHERE agent_id = @agentId AND tool_name = @toolName ORDER BY created_at DESC, id DESC LIMIT @window
       ) w JOIN confirmation_requests r ON r.id = w.id
       WHERE (w.session_id IS @sessionId OR @anySession) AND (w.args_sha256 = @argsSha256 OR @also) AND (w.args_sha256 = @argsSha256 OR r.approved_args IS NOT NULL)
       ORDER BY w.created_at DESC, w.id DESC`,
    ),
    countByStatus: sqlite.prepare('SELECT status, count(*) AS n FROM confirmation_requests GROUP BY status'),
    ping: sqlite.prepare('SELECT 1').pluck(),
  };
}
