/**
 * @module bench/seed
 * Fills a SQLite file with a year of history fast (`seedHistory`): batched transactions of multi-row inserts built by
 * `history-rows.ts`, the events chained as the gateway chains them. The pending-only seed is `seed-pending.ts`.
 */
import { argsSha256 } from '../src/requests/args-hash.js';
import { askedDigest } from '../src/requests/coverage.js';
import { applyMigrations, openDatabase, type OpenDatabase } from '../src/stores/sqlite/database.js';
import { newConfirmationRequest } from '../src/requests/new-request.js';
import { SEED_DEFAULTS } from './seed-pending.js';
import type { ConfirmationRequest } from '../src/requests/types.js';
import { GENESIS_HASH } from '../src/audit/encoding.js';
import {
  BulkInsert,
  CARD_KEYS,
  chainEvents,
  markSeededLegacy,
  EVENT_KEYS,
  historyPlan,
  historyRows,
  REQUEST_KEYS,
  SeedIds,
  type HistoryPlan,
  type HistorySeedOptions,
} from './history-rows.js';

export { historyPlan, type HistoryPlan, type HistorySeedOptions } from './history-rows.js';
import { channelMessages, confirmationEvents, confirmationRequests } from '../src/stores/sqlite/schema.js';

/** What {@link seedHistory} wrote. */
export interface HistorySeed {
  rows: number;
  pending: number;
  events: number;
  /** The oldest and newest `created_at`. */
  from: Date;
  to: Date;
  seconds: number;
}

/** An event of a seeded request; `detail` is written as each dialect stores JSON. */
export interface SeedEvent {
  type: string;
  actor: string | null;
  channel: string | null;
  detail: Record<string, string>;
  at: Date;
}

const STATUSES = ['approved', 'approved', 'denied', 'expired', 'cancelled'] as const;

/**
 * Request `i` of a history: decided (approved, denied, expired, cancelled) by `slack:U<k>` (person `p<k>`) with its
 * `created` and verdict events, or (one in `pendingEvery`, or all with `pendingOnly`) pending, listing `web:alice`.
 * Every request also has a sent web card (written by the seeders).
 */
export function historyRow(i: number, p: HistoryPlan): { request: ConfirmationRequest; events: SeedEvent[] } {
  const createdAt = p.pendingOnly
    ? new Date(p.now - 3_600_000 + Math.floor((i / p.rows) * 3_600_000))
    : new Date(p.now - p.span + Math.floor((i / p.rows) * p.span) - 60_000);
  const toolName = `tool.${i % p.tools}`;
  const toolArgs = { table: `t${i % 997}`, rows: i % 1000 };
  const k = i % p.approvers;
  const base = newConfirmationRequest(
    {
      toolName,
      toolArgs,
      prompt: 'Export a table to a file.',
      agentId: `agent-${i % p.agents}`,
      sessionId: `session-${i}`,
      approvers: ['web:alice', `slack:U${k}`],
    },
    SEED_DEFAULTS,
    [{ type: 'web' }],
    argsSha256(toolName, toolArgs),
    createdAt,
  );
  // As the gateway writes it: the created event carries the digest of what was asked (docs/audit.md).
  const created = (r: ConfirmationRequest): SeedEvent => ({
    type: 'created',
    actor: null,
    channel: null,
    detail: { asked: askedDigest(r) },
    at: createdAt,
  });
  if (p.pendingOnly || i % p.pendingEvery === p.pendingEvery - 1) {
    const pending = { ...base, expiresAt: new Date(p.now + 3_600_000 + ((i * 7919) % 3_600_000)) };
    return { request: pending, events: [created(pending)] };
  }
  const status = STATUSES[i % STATUSES.length]!;
  const respondedAt = new Date(createdAt.getTime() + 30_000);
  const byPerson = status === 'approved' || status === 'denied';
  const decidedBy = byPerson ? `slack:U${k}` : status === 'expired' ? 'system' : `agent-${i % p.agents}`;
  const request: ConfirmationRequest = {
    ...base,
    status,
    expiresAt: new Date(createdAt.getTime() + 300_000),
    updatedAt: respondedAt,
    respondedAt,
    respondedBy: decidedBy,
    respondedVia: byPerson ? 'slack' : null,
    respondedByPerson: byPerson ? `p${k}` : null,
    decisionOption: status === 'approved' ? 'Approve' : status === 'denied' ? 'Deny' : null,
    allowed: status === 'approved',
  };
  const detail: Record<string, string> =
    status === 'expired'
      ? { on_timeout: 'deny' }
      : status === 'cancelled'
        ? {}
        : { person: `p${k}`, option: request.decisionOption! };
  return {
    request,
    events: [
      created(request),
      { type: status, actor: decidedBy, channel: request.respondedVia, detail, at: respondedAt },
    ],
  };
}

const SEEDED_TABLES = ['confirmation_requests', 'confirmation_events', 'channel_messages'];

/**
 * Drops the seeded tables' own indexes (not those SQLite makes for a primary key or UNIQUE column); returns the
 * statements that create them again. Built once over 10 million rows they cost a sort each, where kept they cost a
 * B-tree insert per row into nine indexes that outgrow the page cache.
 */
function dropSecondaryIndexes(sqlite: OpenDatabase['sqlite']): string[] {
  const indexes = sqlite
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${SEEDED_TABLES.map(() => '?').join(', ')})`,
    )
    .all(...SEEDED_TABLES) as { name: string; sql: string }[];
  for (const { name } of indexes) sqlite.exec(`DROP INDEX "${name}"`);
  return indexes.map((i) => i.sql);
}

/**
 * Writes a year of history into `dbPath` (migrating it first), in transactions of `batch` rows: see
 * {@link historyRow} (the rows are built by `historyRows`, its column-level twin). The events' chain hashes are
 * computed here, continuing from the chain's head; the chain's trigger skips rows that arrive with a hash. They are
 * the hashes the trigger would have written.
 *
 * A bench seed, not the gateway's way of writing: the rollback journal in memory and no syncs while it runs (a crash mid-seed
 * leaves a file to delete, and the seed is redone from scratch anyway), the file back in WAL mode when it is done;
 * into empty tables the secondary indexes are built after the rows.
 */
export function seedHistory(dbPath: string, options: HistorySeedOptions): HistorySeed {
  const started = performance.now();
  const p = historyPlan(options);
  const open = openDatabase(dbPath, { sync: 'normal' });
  applyMigrations(open);
  // MEMORY, not OFF: better-sqlite3 runs SQLite defensive, which ignores journal_mode = OFF (and WAL writes every page twice).
  const journal = open.sqlite.pragma('journal_mode = MEMORY', { simple: true });
  if (journal !== 'memory')
    throw new Error(`seedHistory: could not leave WAL mode for the seed (journal_mode is ${String(journal)})`);
  open.sqlite.pragma('synchronous = OFF');
  open.sqlite.pragma('cache_size = -262144');
  // Every event and card names a request written before it (the test holds the seed to `foreign_key_check`): a
  // check of each would be a B-tree search per row.
  open.sqlite.pragma('foreign_keys = OFF');
  const empty = open.sqlite.prepare('SELECT 1 FROM confirmation_requests LIMIT 1').get() === undefined;
  const rebuild = empty ? dropSecondaryIndexes(open.sqlite) : [];
  const requests = new BulkInsert(open.sqlite, confirmationRequests, 'confirmation_requests', REQUEST_KEYS);
  const eventRows = new BulkInsert(open.sqlite, confirmationEvents, 'confirmation_events', EVENT_KEYS, 200, requests);
  const cards = new BulkInsert(open.sqlite, channelMessages, 'channel_messages', CARD_KEYS, 100, requests);
  const ids = new SeedIds();
  const chainValues: unknown[] = [];
  const head = (open.sqlite.prepare('SELECT size AS seq, hash FROM chain_head WHERE id = 1').get() as
    { seq: number; hash: string } | undefined) ?? { seq: 0, hash: GENESIS_HASH };
  let pending = 0;
  let events = 0;
  const write = open.sqlite.transaction((start: number, end: number) => {
    for (let i = start; i < end; i++) {
      const rows = historyRows(i, p, ids);
      const { request } = rows;
      requests.push(...REQUEST_KEYS.map((key) => request[key]));
      chainEvents(rows, head, chainValues);
      eventRows.pushAll(chainValues);
      chainValues.length = 0;
      cards.push(request.id, 'web', '', null, 'sent', 1, null, request.createdAt);
      events += rows.events.length;
      if (request.status === 'pending') pending++;
    }
    requests.flush();
    eventRows.flush();
    cards.flush();
  });
  for (let start = 0; start < p.rows; start += p.batch) write.immediate(start, Math.min(p.rows, start + p.batch));
  markSeededLegacy(open.sqlite, head);
  for (const definition of rebuild) open.sqlite.exec(definition);
  // No ANALYZE: the gateway never runs one, so its planner works without statistics, and so must the bench's.
  open.sqlite.pragma('journal_mode = WAL');
  open.close();
  return {
    rows: p.rows,
    pending,
    events,
    from: historyRow(0, p).request.createdAt,
    to: new Date(p.now),
    seconds: (performance.now() - started) / 1000,
  };
}
