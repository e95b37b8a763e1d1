/**
 * @module stores/postgres/store
 * `ConfirmationStore` on PostgreSQL, exact when several replicas share the database:
 * - a vote that settles its request (a deny, or an approval where one suffices) is one `UPDATE … WHERE status =
 *   'pending'` with its event, so of racing votes one flips the row and the others find it final;
 * - a vote towards a quorum locks its row (`SELECT … FOR NO KEY UPDATE`) before counting approvals, so two replicas
 *   counting one quorum at once serialize on the row and record exactly one verdict;
 * - creates insert with `ON CONFLICT (filer, idempotency_key) DO NOTHING`, so racing creates with one key leave one row;
 * - `expireDue` claims due rows with `FOR NO KEY UPDATE SKIP LOCKED`, so sweeping replicas (and a scan's two lanes) split
 *   the rows between them and each row expires once, without waiting on each other.
 * The writes are `request-writes.ts` (the steps of a vote's or a finish's transaction `verdict-steps.ts`); the reads
 * are plain SQL on the pool, the audit query, scans and exports `history-reads.ts`. Every database error leaves
 * through `errors.ts`, so callers see tollgate errors, never a `pg` one.
 */
import type pg from 'pg';
import type { OpenPostgres } from './database.js';
import { withPostgresErrors } from './errors.js';
import { PostgresHistoryReads } from './history-reads.js';
import { PostgresRequestWrites } from './request-writes.js';
import { rowToEvent, rowToMessage, rowToRequest, type RequestRow } from './rows.js';
import { named, rowsOf, SQL_TEXT } from './statements.js';
import type { Witness } from '../../audit/witness.js';
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

type MessagePatch = Partial<Pick<ChannelMessage, 'messageRef' | 'status' | 'attempts' | 'lastError'>>;

const MESSAGE_COLUMNS: Record<keyof MessagePatch, string> = {
  messageRef: 'message_ref',
  status: 'status',
  attempts: 'attempts',
  lastError: 'last_error',
};

/** Options of {@link PostgresConfirmationStore}. */
export interface PostgresStoreOptions {
  /**
   * Whose clock decides whether a request is overdue (for votes, cancels and `expireDue`): `database` (the default:
   * PostgreSQL's `now()`, so replicas with skewed clocks agree) or `caller` (the time passed in, for tests that run on
   * fixed times or a `ManualClock`).
   */
  deadlineClock?: 'database' | 'caller';
}
/** The PostgreSQL implementation of {@link ConfirmationStore}. */
export class PostgresConfirmationStore implements ConfirmationStore {
  /** 10 000 rows due in one second took 2.5 s to expire at 500 a statement, 0.6 s at up to 4 000. */
  readonly expiryBatchLimit = 4000;
  /** Two statements at once: 10 000 overdue rows at a restart expired in ~0.8 s with one, mostly the server's index updates. */
  readonly expiryLanes = 2;
  private readonly pool: pg.Pool;
  /** The audit query, scans and exports (`history-reads.ts`). */
  private readonly history: PostgresHistoryReads;
  /** Filing, votes, cancels, expiries, escalations and events (`request-writes.ts`). */
  private readonly writes: PostgresRequestWrites;

  constructor(
    private readonly open: OpenPostgres,
    options: PostgresStoreOptions = {},
  ) {
    this.pool = open.pool;
    this.history = new PostgresHistoryReads(open);
    this.writes = new PostgresRequestWrites(open.pool, options.deadlineClock === 'caller');
  }

  /**
   * Signs what this store commits from now on (`audit/witness.ts`): each write's batch receipt, and the verdict token
   * of each request it settles. Set once the key is loaded, before the gateway serves.
   */
  useWitness(witness: Witness | null): void {
    this.writes.useWitness(witness);
  }

  /** Runs `sql` on the pool; rows come back typed as `T`. */
  private async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return rowsOf<T>(this.pool, sql, params);
  }

  private async one(sql: string, params: unknown[]): Promise<ConfirmationRequest | null> {
    const [row] = await this.rows<RequestRow>(sql, params);
    return row ? rowToRequest(row) : null;
  }

  /** Group commit (see `group-commit.ts`): the creates of one event-loop turn are one statement. */
  async create(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras): Promise<CreateResult> {
    return this.writes.create(request, cards, extras);
  }

  async get(id: string) {
    const r = await withPostgresErrors(() => this.one(SQL_TEXT.byId, [id]));
    this.writes.remember([r]);
    return r;
  }

  async getMany(ids: readonly string[]) {
    return withPostgresErrors(async () => (await this.rows<RequestRow>(SQL_TEXT.byIds, [ids])).map(rowToRequest));
  }

  async getByIdempotencyKey(key: string, filedBy: string | null) {
    return withPostgresErrors(() => this.one(SQL_TEXT.byKey, [filedBy ?? '', key]));
  }

  async decide(id: string, vote: Vote): Promise<VoteResult> {
    return this.writes.decide(id, vote);
  }

  async finish(...args: Parameters<ConfirmationStore['finish']>) {
    return this.writes.finish(...args);
  }

  async expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]> {
    return this.writes.expireDue(now, limit);
  }

  async appendEvent(requestId: string, event: NewEvent) {
    await this.writes.appendEvent(requestId, event);
  }

  async verdictTokens(requestIds: readonly string[]) {
    const rows = await withPostgresErrors(() =>
      this.rows<{ id: string; token: string }>(SQL_TEXT.verdictTokens, [requestIds]),
    );
    return new Map(rows.map((r) => [r.id, r.token]));
  }

  async events(requestId: string) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToEvent>[0]>(SQL_TEXT.events, [requestId])).map(rowToEvent),
    );
  }

  async eventsOf(requestIds: readonly string[]) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToEvent>[0]>(SQL_TEXT.eventsOf, [requestIds])).map(rowToEvent),
    );
  }

  async receiptsOf(requestIds: readonly string[]) {
    return this.history.receiptsOf(requestIds);
  }

  async list(query: RequestQuery): Promise<RequestPage> {
    return this.history.list(query);
  }

  scan(query: Omit<RequestQuery, 'limit' | 'cursor'>): AsyncIterable<ConfirmationRequest> {
    return this.history.scan(query);
  }

  exportPages(query: Omit<RequestQuery, 'limit' | 'cursor'>, format: ExportFormat): AsyncIterable<ExportPage> {
    return this.history.exportPages(query, format);
  }

  async pending(limit: number, afterExpiresAt?: Date, afterId?: string) {
    return withPostgresErrors(() =>
      afterExpiresAt === undefined
        ? this.rows<{ id: string; expiresAt: Date }>(SQL_TEXT.pendingFirst, [limit])
        : this.rows<{ id: string; expiresAt: Date }>(SQL_TEXT.pendingAfter, [afterExpiresAt, afterId ?? '', limit]),
    );
  }

  async pendingPlans(limit: number, afterExpiresAt?: Date, afterId?: string) {
    return withPostgresErrors(() =>
      this.rows<{ id: string; expiresAt: Date; planned: boolean }>(SQL_TEXT.pendingPlans, [
        afterExpiresAt ?? null,
        afterId ?? '',
        limit,
      ]),
    );
  }

  async countByStatus() {
    const counts = Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as Record<RequestStatus, number>;
    const rows = await withPostgresErrors(() =>
      this.rows<{ status: RequestStatus; n: number }>(SQL_TEXT.countByStatus),
    );
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  async newestSameCall(query: SameCallQuery): Promise<ConfirmationRequest | null> {
    const params = [
      query.agentId,
      query.toolName,
      query.sessionId,
      query.argsSha256,
      sameCallWindow(query),
      query.alsoApprovedArgs === true,
      query.workspace !== undefined,
    ];
    const match = firstSameCall(
      await withPostgresErrors(() => this.rows<RequestRow>(SQL_TEXT.sameCall, params)),
      query,
    );
    return match ? rowToRequest(match) : null;
  }

  async messages(requestId: string) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToMessage>[0]>(SQL_TEXT.messages, [requestId])).map(rowToMessage),
    );
  }

  async unsentMessages(limit: number) {
    return withPostgresErrors(async () =>
      (await this.rows<Parameters<typeof rowToMessage>[0]>(SQL_TEXT.unsentMessages, [limit])).map(rowToMessage),
    );
  }

  async updateMessage(requestId: string, channel: string, target: string, patch: MessagePatch, at: Date) {
    const keys = (Object.keys(patch) as (keyof MessagePatch)[])
      .filter((k) => patch[k] !== undefined && k in MESSAGE_COLUMNS)
      .sort();
    const sets = [...keys.map((k, i) => `${MESSAGE_COLUMNS[k]} = $${i + 5}`), 'updated_at = $4'].join(', ');
    const sql = `UPDATE channel_messages SET ${sets} WHERE request_id = $1 AND channel = $2 AND target = $3`;
    await withPostgresErrors(() =>
      this.pool.query(sql, [requestId, channel, target, at, ...keys.map((k) => patch[k])]),
    );
  }

  async escalate(...args: Parameters<ConfirmationStore['escalate']>) {
    return this.writes.escalate(...args);
  }

  async ensureMessage(requestId: string, channel: string, target: string, at: Date) {
    await withPostgresErrors(() =>
      this.pool.query(named(SQL_TEXT.insertMessage, [requestId, channel, target, 'pending', at])),
    );
  }

  async ping() {
    await withPostgresErrors(() => this.pool.query('SELECT 1'));
  }

  async close() {
    await this.open.close();
  }
}
