/**
 * @module bench/history-rows
 * The SQLite history seeder's rows, built straight into insert parameters: the columns {@link historyRow} describes,
 * without a `ConfirmationRequest` per row, its canonical-JSON argument hash, or a CSPRNG call per id and nonce
 * (building and mapping those objects was ~40 % of the seed's profile), and the multi-row INSERTs that write them.
 * `test/integration/bench/seed-history.test.ts` holds these rows equal to `requestToRow(historyRow(i))` but for the
 * id and the nonce.
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { chainHash, leafOf } from '../src/audit/leaf.js';
import { askedDigest } from '../src/requests/coverage.js';
import { chainedFieldsOf } from '../src/stores/sqlite/witnessed-insert.js';
import type { OpenDatabase } from '../src/stores/sqlite/database.js';
import type { RequestRow } from '../src/stores/sqlite/rows.js';
import { confirmationRequests } from '../src/stores/sqlite/schema.js';

/** Options of `seedHistory` (`bench/seed.ts`). */
export interface HistorySeedOptions {
  /** Requests to write (a tenth of a percent of them, at least one, stay pending). */
  rows: number;
  /** How far back the oldest request was filed (default 365 days); rows are spread evenly up to now. */
  days?: number;
  /** Tools, agents and approvers to spread the rows over (defaults 40, 20, 25). */
  tools?: number;
  agents?: number;
  approvers?: number;
  /** Rows per transaction (default 10 000; 100 000 on PostgreSQL, one statement each): 10 million rows never sit in one transaction. */
  batch?: number;
  /** Write only pending requests, filed in the last hour and due one to two hours from now (added to a history). */
  pendingOnly?: boolean;
}

/** The rows and the spread `historyRow` (`bench/seed.ts`) builds request `i` of. */
export interface HistoryPlan extends Required<Omit<HistorySeedOptions, 'days'>> {
  now: number;
  span: number;
  pendingEvery: number;
}

/** The plan of a seeding run started now. */
export function historyPlan(options: HistorySeedOptions): HistoryPlan {
  const { rows, days = 365, tools = 40, agents = 20, approvers = 25, batch = 10_000, pendingOnly = false } = options;
  return {
    rows,
    tools,
    agents,
    approvers,
    batch,
    pendingOnly,
    now: Date.now(),
    span: days * 86_400_000,
    pendingEvery: Math.max(2, Math.min(1000, rows)),
  };
}

const STATUSES = ['approved', 'approved', 'denied', 'expired', 'cancelled'] as const;
const PROMPT = 'Export a table to a file.';

/** One seeded request's rows: the request, its events (without chain columns yet) and its card's time. */
export interface HistoryRows {
  request: RequestRow;
  /** `[type, actor, channel, detail, at]` of each event, oldest first. */
  events: [string, string | null, string | null, string, string][];
}

/**
 * Ids and nonces for one seeding run. An id is a UUIDv7 of the row's millisecond whose random bits are a salt of this
 * run (24 bits) and the row's number (48 bits): unique within a run and, by the salt, against an earlier run's rows
 * in the same file; in creation order, since a row's millisecond never goes back. Nonces are read from one random
 * buffer per 4,096 rows.
 */
export class SeedIds {
  private readonly saltA = randomBytes(2).readUInt16BE() & 0xfff;
  private readonly saltB = randomBytes(2).readUInt16BE() & 0xfff;
  private nonces = '';
  private nonceAt = 0;

  /** The id of row `i`, filed at `ms`. */
  id(ms: number, i: number): string {
    const time = ms.toString(16).padStart(12, '0');
    return `${time.slice(0, 8)}-${time.slice(8)}-7${this.saltA.toString(16).padStart(3, '0')}-8${this.saltB.toString(16).padStart(3, '0')}-${i.toString(16).padStart(12, '0')}`;
  }

  /** A fresh 18-byte nonce as base64url (as `newConfirmationRequest` makes it). */
  nonce(): string {
    if (this.nonceAt === this.nonces.length) {
      // 18 bytes are 24 base64 characters with no padding, so the buffer's encoding cuts into whole nonces.
      this.nonces = randomBytes(18 * 4096).toString('base64url');
      this.nonceAt = 0;
    }
    return this.nonces.slice(this.nonceAt, (this.nonceAt += 24));
  }
}

/** The SHA-256 `argsSha256` computes for tool `tool.<t>` and `{ table, rows }`, its canonical JSON written out. */
function argsHash(tool: string, table: string, rows: number): string {
  return createHash('sha256')
    .update(`{"tool_args":{"rows":${rows},"table":"${table}"},"tool_name":"${tool}"}`)
    .digest('hex');
}

/** Row `i` of the plan `p` (see {@link historyRow}), as SQLite stores it. */
export function historyRows(i: number, p: HistoryPlan, ids: SeedIds): HistoryRows {
  const createdMs = p.pendingOnly
    ? p.now - 3_600_000 + Math.floor((i / p.rows) * 3_600_000)
    : p.now - p.span + Math.floor((i / p.rows) * p.span) - 60_000;
  const createdAt = new Date(createdMs).toISOString();
  const toolName = `tool.${i % p.tools}`;
  const table = `t${i % 997}`;
  const k = i % p.approvers;
  const agentId = `agent-${i % p.agents}`;
  const pending = p.pendingOnly || i % p.pendingEvery === p.pendingEvery - 1;
  const status = pending ? 'pending' : STATUSES[i % STATUSES.length]!;
  const byPerson = status === 'approved' || status === 'denied';
  const respondedAt = pending ? null : new Date(createdMs + 30_000).toISOString();
  const respondedBy = pending ? null : byPerson ? `slack:U${k}` : status === 'expired' ? 'system' : agentId;
  const request: RequestRow = {
    id: ids.id(createdMs, i),
    status,
    toolName,
    toolArgs: `{"table":"${table}","rows":${i % 1000}}`,
    approvedArgs: null,
    prompt: PROMPT,
    options: '["Approve","Deny"]',
    agentId,
    userId: null,
    sessionId: `session-${i}`,
    toolCallId: null,
    agentKind: null,
    context: null,
    metadata: '{}',
    summary: null,
    channels: '[{"type":"web"}]',
    approvers: `["web:alice","slack:U${k}"]`,
    requiredApprovals: 1,
    onTimeout: 'deny',
    idempotencyKey: null,
    argsSha256: argsHash(toolName, table, i % 1000),
    callbackUrl: null,
    filedBy: null,
    filedByPerson: null,
    nonce: ids.nonce(),
    createdAt,
    expiresAt: new Date(pending ? p.now + 3_600_000 + ((i * 7919) % 3_600_000) : createdMs + 300_000).toISOString(),
    updatedAt: respondedAt ?? createdAt,
    respondedAt,
    respondedBy,
    respondedVia: byPerson ? 'slack' : null,
    respondedByPerson: byPerson ? `p${k}` : null,
    onBehalfOf: null,
    decisionOption: status === 'approved' ? 'Approve' : status === 'denied' ? 'Deny' : null,
    reason: null,
    allowed: pending ? null : status === 'approved' ? 1 : 0,
  };
  // The digest of what was asked, as the gateway writes it on the created event (docs/audit.md).
  const asked = askedDigest({
    toolName,
    argsSha256: request.argsSha256,
    approvers: ['web:alice', `slack:U${k}`],
    requiredApprovals: 1,
    prompt: PROMPT,
    options: ['Approve', 'Deny'],
    userId: null,
    agentId,
    sessionId: request.sessionId,
    toolCallId: null,
    agentKind: null,
    context: null,
    filedBy: null,
    filedByPerson: null,
    callbackUrl: null,
    metadata: {},
    createdAt: new Date(createdMs),
    expiresAt: new Date(request.expiresAt),
    onTimeout: 'deny',
  });
  const events: HistoryRows['events'] = [['created', null, null, `{"asked":"${asked}"}`, createdAt]];
  if (!pending) {
    const detail =
      status === 'expired'
        ? '{"on_timeout":"deny"}'
        : status === 'cancelled'
          ? '{}'
          : `{"person":"p${k}","option":"${request.decisionOption}"}`;
    events.push([status, respondedBy, request.respondedVia, detail, respondedAt!]);
  }
  return { request, events };
}

/**
 * Appends `rows`' events to `out` as `confirmation_events` parameters (request_id, type, actor, channel, detail, at,
 * prev_hash, hash, seq, leaf), placed in the chain after `head` as the integrator would (`audit/integrator.ts`);
 * returns the new head. A seeded history is the database's legacy part: {@link markSeededLegacy} closes it.
 */
export function chainEvents(rows: HistoryRows, head: { seq: number; hash: string }, out: unknown[]): void {
  const { request } = rows;
  for (const [type, actor, channel, detail, at] of rows.events) {
    const leaf = leafOf({
      requestId: request.id,
      type,
      actor,
      channel,
      detail: JSON.parse(detail) as unknown,
      at,
      request: type === 'created' ? chainedFieldsOf(request) : null,
    });
    const hash = chainHash(head.hash, leaf);
    out.push(request.id, type, actor, channel, detail, at, head.hash, hash, ++head.seq, leaf);
    head.hash = hash;
  }
}

/**
 * Makes what a seed wrote the database's legacy part (written before the fifth stage, no receipts): the integrator's
 * head moves to the seeded chain's end, and the first gateway to start signs the `legacy` checkpoint over it (or
 * integrates events seeded without a place first). Only before the first checkpoint.
 */
export function markSeededLegacy(sqlite: OpenDatabase['sqlite'], head?: { seq: number; hash: string }): void {
  sqlite
    .prepare(
      'UPDATE chain_head SET size = coalesce(?, size), hash = coalesce(?, hash), legacy = (SELECT max(id) FROM confirmation_events) WHERE id = 1 AND checkpoint = 0',
    )
    .run(head?.seq ?? null, head?.hash ?? null);
}

/**
 * An INSERT of `rows` rows at once into `name`, its columns those of `table` named by `keys` (in that order), with
 * positional parameters: one statement per 100 rows costs SQLite and better-sqlite3 far less than one per row.
 */
export class BulkInsert {
  private readonly columns: string;
  private readonly statements = new Map<number, ReturnType<OpenDatabase['sqlite']['prepare']>>();
  private readonly values: unknown[] = [];

  constructor(
    private readonly sqlite: OpenDatabase['sqlite'],
    table: Table,
    private readonly name: string,
    private readonly keys: readonly string[],
    private readonly rows = 100,
    /** Written before this one's rows (their foreign keys name its rows, and are checked per statement). */
    private readonly parent?: BulkInsert,
  ) {
    const all = getTableColumns(table);
    this.columns = keys.map((key) => `"${all[key]!.name}"`).join(', ');
  }

  /** Adds one row's values, in `keys` order; writes when a statement's worth has gathered. */
  push(...values: unknown[]): void {
    for (const value of values) this.values.push(value);
    if (this.values.length >= this.rows * this.keys.length) this.flush();
  }

  /** Adds the rows in `values` (whole rows, flattened). */
  pushAll(values: unknown[]): void {
    for (const value of values) this.values.push(value);
    if (this.values.length >= this.rows * this.keys.length) this.flush();
  }

  /** Writes what has gathered. */
  flush(): void {
    const count = this.values.length / this.keys.length;
    if (count === 0) return;
    this.parent?.flush();
    let statement = this.statements.get(count);
    if (!statement) {
      const row = `(${this.keys.map(() => '?').join(', ')})`;
      statement = this.sqlite.prepare(
        `INSERT INTO ${this.name} (${this.columns}) VALUES ${Array.from({ length: count }, () => row).join(', ')}`,
      );
      this.statements.set(count, statement);
    }
    statement.run(this.values);
    this.values.length = 0;
  }
}

/** The columns the seed writes, in its parameters' order. */
export const REQUEST_KEYS = Object.keys(getTableColumns(confirmationRequests)) as (keyof RequestRow)[];
export const EVENT_KEYS = ['requestId', 'type', 'actor', 'channel', 'detail', 'at', 'prevHash', 'hash', 'seq', 'leaf'];
export const CARD_KEYS = [
  'requestId',
  'channel',
  'target',
  'messageRef',
  'status',
  'attempts',
  'lastError',
  'updatedAt',
];
