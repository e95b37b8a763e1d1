/**
 * @module stores/sqlite/store
 * `ConfirmationStore` on SQLite (better-sqlite3). Hot paths use statements prepared once (`statements.ts`); the
 * writes are `request-writes.ts`, the audit query, scans and exports `history-reads.ts`. Transactions are
 * `BEGIN IMMEDIATE`, so several gateway processes sharing one file serialize their compare-and-sets instead of
 * failing on a lock upgrade.
 */
import type Database from 'better-sqlite3';
import type { Witness } from '../../audit/witness.js';
import type { OpenDatabase } from './database.js';
import { translateSqliteErrors } from './errors.js';
import { SqliteHistoryReads } from './history-reads.js';
import { SqliteRequestWrites } from './request-writes.js';
import { requestOfValues, rowToEvent, rowToMessage, rowToRequest } from './rows.js';
import { prepareStatements, type Statements } from './statements.js';
import type { ExportFormat, ExportPage } from '../../requests/export-lines.js';
import { firstSameCall, sameCallWindow } from '../../requests/same-call.js';
import type {
  ConfirmationStore,
  CreateExtras,
  CreateResult,
  NewCard,
  RequestPage,
  RequestQuery,
  SameCallQuery,
  Vote,
  VoteResult,
} from '../../requests/store.js';
import {
  REQUEST_STATUSES,
  type ChannelMessage,
  type ConfirmationRequest,
  type NewEvent,
  type RequestStatus,
} from '../../requests/types.js';

type RequestRow = Parameters<typeof rowToRequest>[0];
type MessagePatch = Partial<Pick<ChannelMessage, 'messageRef' | 'status' | 'attempts' | 'lastError'>>;

const MESSAGE_COLUMNS: Record<keyof MessagePatch, string> = {
  messageRef: 'message_ref',
  status: 'status',
  attempts: 'attempts',
  lastError: 'last_error',
};

/** The SQLite implementation of {@link ConfirmationStore}. */
export class SqliteConfirmationStore implements ConfirmationStore {
  /**
   * A start-up finding 10 000 overdue rows expires them in two transactions instead of twenty: the rows, the four
   * status-bearing indexes and the events they touch go to the WAL (and its fsync) once (a third less CPU, measured).
   */
  readonly catchUpBatchLimit = 5000;
  private readonly sql: Statements;
  private readonly sqlite: Database.Database;
  private readonly messageUpdates = new Map<string, Database.Statement>();
  /** The audit query, scans and exports (`history-reads.ts`). */
  private readonly history: SqliteHistoryReads;
  /** Filing, votes, cancels, expiries, escalations and events (`request-writes.ts`). */
  private readonly writes: SqliteRequestWrites;
  private readonly tokensOf: Database.Statement;

  constructor(private readonly open: OpenDatabase) {
    this.sqlite = open.sqlite;
    this.sql = prepareStatements(open.sqlite);
    this.writes = new SqliteRequestWrites(open, this.sql);
    this.tokensOf = open.sqlite
      .prepare('SELECT request_id, token FROM verdict_tokens WHERE request_id IN (SELECT value FROM json_each(?))')
      .raw();
    this.history = new SqliteHistoryReads(open, this.sql);
    // Callers see tollgate errors (conflict, busy, read-only…), never a SqliteError.
    return translateSqliteErrors(this);
  }

  /**
   * Signs what this store commits from now on (`audit/witness.ts`): each transaction's batch receipt, and the verdict
   * token of each request it settles. Set once the key is loaded, before the gateway serves.
   */
  useWitness(witness: Witness | null): void {
    this.writes.useWitness(witness);
  }

  /** The request a raw statement of whole requests (`statements.ts`) reads, if any. */
  private row(statement: Database.Statement, ...params: unknown[]): ConfirmationRequest | null {
    const values = statement.get(...params) as unknown[] | undefined;
    return values ? requestOfValues(values) : null;
  }

  /** Committed with the other writes of this event-loop turn (`request-writes.ts`). */
  async create(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras): Promise<CreateResult> {
    return this.writes.create(request, cards, extras);
  }

  async get(id: string) {
    return this.row(this.sql.requestById, id);
  }

  async getMany(ids: readonly string[]) {
    return (this.sql.requestsByIds.all(JSON.stringify(ids)) as unknown[][]).map(requestOfValues);
  }

  async getByIdempotencyKey(key: string, filedBy: string | null) {
    return this.row(this.sql.requestByKey, filedBy ?? '', key);
  }

  /** Committed with the other writes of this event-loop turn (`request-writes.ts`). */
  async decide(id: string, vote: Vote): Promise<VoteResult> {
    return this.writes.decide(id, vote);
  }

  /** Committed with the other writes of this event-loop turn (`request-writes.ts`). */
  async finish(...args: Parameters<ConfirmationStore['finish']>) {
    return this.writes.finish(...args);
  }

  async expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]> {
    return this.writes.expireDue(now, limit);
  }

  async appendEvent(requestId: string, event: NewEvent) {
    this.writes.appendEvent(requestId, event);
  }

  async events(requestId: string) {
    return (this.sql.events.all(requestId) as Parameters<typeof rowToEvent>[0][]).map(rowToEvent);
  }

  async verdictTokens(requestIds: readonly string[]) {
    const rows = this.tokensOf.all(JSON.stringify(requestIds)) as [string, string][];
    return new Map(rows);
  }

  async eventsOf(requestIds: readonly string[]) {
    return (this.sql.eventsOf.all(JSON.stringify(requestIds)) as Parameters<typeof rowToEvent>[0][]).map(rowToEvent);
  }

  async receiptsOf(requestIds: readonly string[]) {
    return this.history.receiptsOf(requestIds);
  }

  async list(query: RequestQuery): Promise<RequestPage> {
    return this.history.list(query);
  }

  async newestSameCall(query: SameCallQuery): Promise<ConfirmationRequest | null> {
    const { agentId, toolName, sessionId, argsSha256 } = query;
    const params = {
      agentId,
      toolName,
      sessionId,
      argsSha256,
      window: sameCallWindow(query),
      also: query.alsoApprovedArgs ? 1 : 0,
      anySession: query.workspace ? 1 : 0,
    };
    // Iterated, so the statement stops at the first match.
    const match = firstSameCall(this.sql.sameCall.iterate(params) as IterableIterator<RequestRow>, query);
    return match ? rowToRequest(match) : null;
  }

  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    return this.history.scan(query);
  }

  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    return this.history.exportPages(query, format);
  }

  async pending(limit: number, afterExpiresAt?: Date, afterId?: string) {
    const rows = (
      afterExpiresAt === undefined
        ? this.sql.pendingFirst.all(limit)
        : this.sql.pendingAfter.all({ after: afterExpiresAt.toISOString(), afterId: afterId ?? '', limit })
    ) as { id: string; expiresAt: string }[];
    return rows.map((r) => ({ id: r.id, expiresAt: new Date(r.expiresAt) }));
  }

  async pendingPlans(limit: number, afterExpiresAt?: Date, afterId?: string) {
    return this.history.pendingPlans(limit, afterExpiresAt, afterId);
  }

  async countByStatus() {
    const counts = Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as Record<RequestStatus, number>;
    for (const row of this.sql.countByStatus.all() as { status: RequestStatus; n: number }[])
      counts[row.status] = row.n;
    return counts;
  }

  async messages(requestId: string) {
    return (this.sql.messages.all(requestId) as Parameters<typeof rowToMessage>[0][]).map(rowToMessage);
  }

  async unsentMessages(limit: number) {
    return (this.sql.unsentMessages.all(limit) as Parameters<typeof rowToMessage>[0][]).map(rowToMessage);
  }

  async updateMessage(requestId: string, channel: string, target: string, patch: MessagePatch, at: Date) {
    const keys = (Object.keys(patch) as (keyof MessagePatch)[]).filter((k) => patch[k] !== undefined).sort();
    const cacheKey = keys.join(',');
    let statement = this.messageUpdates.get(cacheKey);
    if (!statement) {
      const sets = [...keys.map((k) => `${MESSAGE_COLUMNS[k]} = @${k}`), 'updated_at = @at'].join(', ');
      statement = this.sqlite.prepare(
        `UPDATE channel_messages SET ${sets} WHERE request_id = @requestId AND channel = @channel AND target = @target`,
      );
      this.messageUpdates.set(cacheKey, statement);
    }
    statement.run({
      ...Object.fromEntries(keys.map((k) => [k, patch[k]])),
      at: at.toISOString(),
      requestId,
      channel,
      target,
    });
  }

  async escalate(...args: Parameters<ConfirmationStore['escalate']>) {
    return this.writes.escalate(...args);
  }

  async ensureMessage(requestId: string, channel: string, target: string, at: Date) {
    this.sql.insertMessage.run(requestId, channel, target, 'pending', at.toISOString());
  }

  async ping() {
    this.sql.ping.get();
  }

  async close() {
    this.history.close();
    if (this.sqlite.open) this.open.close();
  }
}
