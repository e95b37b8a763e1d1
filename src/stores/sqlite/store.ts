/**
 * @module stores/sqlite/store
 * `ConfirmationStore` on SQLite (better-sqlite3). Hot paths use statements prepared once (`statements.ts`);
 * the audit query, scans and exports are `history-reads.ts`. Transactions are `BEGIN IMMEDIATE`, so several gateway
 * processes sharing one file serialize their compare-and-sets instead of failing on a lock upgrade.
 */
import type Database from 'better-sqlite3';
import { and, eq } from 'drizzle-orm';
import { WitnessedEvents, chainedFieldsOf } from './witnessed-insert.js';
import type { Witness } from '../../audit/witness.js';
import { witnessedApprovals, type ApprovalRow } from '../../audit/witnessed-approvals.js';
import { attachVerdictToken } from '../../requests/serialize.js';
import type { ChainedRequestFields } from '../../audit/encoding.js';
import type { OpenDatabase } from './database.js';
import { translateSqliteErrors } from './errors.js';
import { SqliteHistoryReads } from './history-reads.js';
import { requestOfValues, requestRowValues, requestToRow, rowToEvent, rowToMessage, rowToRequest } from './rows.js';
import { isoString } from '../../utils/iso-time.js';
import { confirmationRequests as requests } from './schema.js';
import { prepareStatements, type Statements, type VoteState } from './statements.js';
import type { ExportFormat, ExportPage } from '../../requests/export-lines.js';
import { createdEvent, escalatedEvent } from '../../requests/coverage.js';
import { GroupCommit } from '../../utils/group-commit.js';
import { isAllowed } from '../../requests/state-machine.js';
import { needsPriorApprovers, planVote, type PriorApproval } from '../../requests/vote-plan.js';
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
  type ChannelTarget,
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
  private readonly witnessed: WitnessedEvents;
  private readonly insertToken: Database.Statement;
  private readonly tokensOf: Database.Statement;
  /** One `BEGIN IMMEDIATE` wrapper for every transaction: better-sqlite3 builds five wrappers per `transaction()` call. */
  private readonly immediate: <T>(fn: () => T) => T;
  /**
   * Group commit (see `group-commit.ts`) of every write that settles or files a request: the creates, votes and cancels
   * of one event-loop turn are one `BEGIN IMMEDIATE` transaction, so one WAL write and, at the default FULL sync, one
   * fsync, instead of one each (a decision used to commit alone). Each write still reads and compares under the same
   * write lock, in the order the calls came, so a vote sees the create or vote queued before it.
   */
  private readonly writes = new GroupCommit((items: (() => unknown)[]) => this.tx(() => items.map((write) => write())));

  constructor(private readonly open: OpenDatabase) {
    this.sqlite = open.sqlite;
    this.sql = prepareStatements(open.sqlite);
    this.witnessed = new WitnessedEvents(open.sqlite);
    this.insertToken = open.sqlite.prepare('INSERT INTO verdict_tokens (request_id, token) VALUES (?, ?)');
    this.tokensOf = open.sqlite
      .prepare('SELECT request_id, token FROM verdict_tokens WHERE request_id IN (SELECT value FROM json_each(?))')
      .raw();
    this.history = new SqliteHistoryReads(open, this.sql);
    this.immediate = open.sqlite.transaction((fn: () => unknown) => fn()).immediate as <T>(fn: () => T) => T;
    // Callers see tollgate errors (conflict, busy, read-only…), never a SqliteError.
    return translateSqliteErrors(this);
  }

  /**
   * Signs what this store commits from now on (`audit/witness.ts`): each transaction's batch receipt, and the verdict
   * token of each request it settles. Set once the key is loaded, before the gateway serves.
   */
  useWitness(witness: Witness | null): void {
    this.witnessed.witness = witness;
  }

  /** Runs `fn` in a `BEGIN IMMEDIATE` transaction, whose events' receipt is signed last, inside it. */
  private tx<T>(fn: () => T): T {
    try {
      return this.immediate(() => {
        const result = fn();
        this.witnessed.seal();
        return result;
      });
    } finally {
      this.witnessed.reset();
    }
  }

  /**
   * Mints, stores and attaches the verdict token of `r`, settled in the caller's transaction (needs a witness), naming
   * the `approvals` that made a quorum's verdict (as the vote's plan counted them, never read back unchecked).
   */
  private mint(r: ConfirmationRequest, approvals: readonly PriorApproval[] = []): ConfirmationRequest {
    const witness = this.witnessed.witness;
    if (!witness) return r;
    const token = witness.verdict(r, approvals);
    if (token) {
      this.insertToken.run(r.id, token);
      attachVerdictToken(r, token);
    }
    return r;
  }

  /** The request a raw statement of whole requests (`statements.ts`) reads, if any. */
  private row(statement: Database.Statement, ...params: unknown[]): ConfirmationRequest | null {
    const values = statement.get(...params) as unknown[] | undefined;
    return values ? requestOfValues(values) : null;
  }

  /** Queues `write` for this turn's transaction (see {@link writes}); resolves with its result once it is committed. */
  private grouped<T>(write: () => T): Promise<T> {
    return this.writes.add(write) as Promise<T>;
  }

  /** Committed with the other writes of this event-loop turn ({@link writes}). */
  async create(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras): Promise<CreateResult> {
    return this.grouped(() => this.createOne(request, cards, extras));
  }

  private createOne(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras) {
    if (request.idempotencyKey) {
      const existing = this.row(this.sql.requestByKey, request.filedBy ?? '', request.idempotencyKey);
      if (existing) return { request: existing, created: false };
    }
    const row = requestToRow(request);
    this.sql.insertRequest.run(requestRowValues(row));
    this.insertEvent(request.id, createdEvent(request, extras?.detail), chainedFieldsOf(row));
    // A request a policy settled at filing carries its verdict from the start.
    if (request.status !== 'pending') this.mint(request);
    for (const event of extras?.events ?? []) this.insertEvent(request.id, event);
    const at = row.createdAt;
    for (const card of cards) {
      this.sql.insertMessage.run(request.id, card.channel, card.target, card.sent ? 'sent' : 'pending', at);
      // A channel whose card is the row itself (the web inbox) is delivered the moment the row exists.
      if (card.sent)
        this.insertEvent(request.id, {
          type: 'delivered',
          actor: null,
          channel: card.channel,
          detail: { target: card.target, message_ref: null, attempt: 0 },
          at: request.createdAt,
        });
    }
    return { request, created: true };
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

  /**
   * Committed with the other writes of this event-loop turn ({@link writes}). Under the lock it reads only what a vote
   * is planned on (`voteState`): a settling vote gets its row whole from the flip's RETURNING; rarer outcomes read it.
   */
  async decide(id: string, vote: Vote): Promise<VoteResult> {
    return this.grouped((): VoteResult => {
      const state = this.sql.voteState.get(id) as VoteState | undefined;
      if (!state) return { kind: 'not_found' };
      if (state.status !== 'pending') return { kind: 'already_final', request: this.whole(id) };
      // The deadline belongs to the row: a vote at or after it expires the request instead, whatever the timers did.
      if (Date.parse(state.expiresAt) <= vote.at.getTime())
        return { kind: 'expired', request: this.expireLate(this.whole(id), vote.at) };
      const prior = needsPriorApprovers(state, vote)
        ? witnessedApprovals(this.sql.approvers.all(id) as ApprovalRow[], this.witnessed.witness?.keys ?? null)
        : { counted: [], uncounted: [] };
      const plan = planVote(state, prior.counted, vote, prior.uncounted);
      if (plan.kind === 'duplicate') return { kind: 'duplicate', request: this.whole(id), priorActor: plan.priorActor };
      this.insertEvent(id, plan.event);
      if (plan.kind === 'recorded') {
        // Who voted without settling, for `?person=` (a settling vote is the row's `responded_by_person`).
        this.sql.recordVoter.run(plan.event.detail.person, state.createdAt, id);
        this.sql.touch.run(isoString(vote.at), id);
        return { kind: 'recorded', request: this.whole(id), approvals: plan.approvals };
      }
      const { approvedArgs, ...fields } = plan.fields;
      const request = this.flip(
        id,
        plan.status,
        state.onTimeout,
        { ...fields, approvedArgs: approvedArgs == null ? null : JSON.stringify(approvedArgs) },
        plan.approvals,
      );
      return { kind: 'final', request };
    });
  }

  /** The row `id`, read inside the caller's transaction, which has found it. */
  private whole(id: string): ConfirmationRequest {
    return this.row(this.sql.requestById, id)!;
  }

  /** Expires `current` (pending, past its deadline) inside the caller's transaction, with its `expired` event. */
  private expireLate(current: ConfirmationRequest, at: Date): ConfirmationRequest {
    const expired = this.flip(current.id, 'expired', current.onTimeout, {
      respondedBy: 'system',
      respondedVia: null,
      at,
    });
    this.insertEvent(current.id, {
      type: 'expired',
      actor: 'system',
      channel: null,
      detail: { on_timeout: current.onTimeout, late_by_ms: at.getTime() - current.expiresAt.getTime() },
      at,
    });
    return expired;
  }

  /** The compare-and-set. Inside a transaction that already read the row as pending, so it always matches. */
  private flip(
    id: string,
    status: 'approved' | 'denied' | 'expired' | 'cancelled',
    onTimeout: ConfirmationRequest['onTimeout'],
    fields: {
      respondedBy: string | null;
      respondedVia: string | null;
      respondedByPerson?: string | null;
      onBehalfOf?: string | null;
      decisionOption?: string | null;
      reason?: string | null;
      approvedArgs?: string | null;
      at: Date;
    },
    approvals: readonly PriorApproval[] = [],
  ): ConfirmationRequest {
    const allowed = isAllowed(status, onTimeout) === true;
    const at = isoString(fields.at);
    const row = this.sql.flip.get(
      status,
      at,
      at,
      fields.respondedBy,
      fields.respondedVia,
      fields.respondedByPerson ?? null,
      fields.onBehalfOf ?? null,
      fields.decisionOption ?? null,
      fields.reason ?? null,
      fields.approvedArgs ?? null,
      allowed ? 1 : 0,
      id,
    ) as unknown[] | undefined;
    if (!row) throw new Error(`compare-and-set lost on ${id} inside its own transaction`);
    return this.mint(requestOfValues(row), approvals);
  }

  /** Committed with the other writes of this event-loop turn ({@link writes}). */
  async finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ) {
    return this.grouped(() => {
      const current = this.row(this.sql.requestById, id);
      if (!current || current.status !== 'pending') return null;
      if (status === 'cancelled' && current.expiresAt.getTime() <= event.at.getTime())
        return this.expireLate(current, event.at);
      const reason = typeof event.detail.reason === 'string' ? event.detail.reason : null;
      const final = this.flip(id, status, current.onTimeout, {
        respondedBy: event.actor,
        respondedVia: event.channel,
        reason,
        at: event.at,
      });
      this.insertEvent(id, { type: status, ...event });
      return final;
    });
  }

  async expireDue(now: Date, limit: number): Promise<ConfirmationRequest[]> {
    return this.tx(() => {
      const at = now.toISOString();
      const rows = this.sql.expireDue.all({ at, now: at, limit }) as unknown[][];
      // RETURNING gives rows in storage order; callers (and the contract) get them oldest expiry first.
      const expired = rows
        .map(requestOfValues)
        .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1));
      for (const r of expired)
        this.insertEvent(r.id, {
          type: 'expired',
          actor: 'system',
          channel: null,
          detail: { on_timeout: r.onTimeout },
          at: now,
        });
      for (const r of expired) this.mint(r);
      return expired;
    });
  }

  async appendEvent(requestId: string, event: NewEvent) {
    this.tx(() => this.insertEvent(requestId, event));
  }

  /** Inside the caller's transaction, witnessed (`witnessed-insert.ts`). */
  private insertEvent(requestId: string, e: NewEvent, request?: ChainedRequestFields) {
    this.witnessed.run(requestId, e, request);
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

  async escalate(
    id: string,
    step: number,
    routing: { approvers: string[]; channels: ChannelTarget[] },
    event: NewEvent,
  ): Promise<ConfirmationRequest | null> {
    return this.tx(() => {
      const current = this.row(this.sql.requestById, id);
      if (!current || current.status !== 'pending') return null;
      const done = (this.sql.events.all(id) as Parameters<typeof rowToEvent>[0][])
        .map(rowToEvent)
        .some((e) => e.type === 'escalated' && e.detail.step === step);
      if (done) return null;
      const at = event.at.toISOString();
      this.open.db
        .update(requests)
        .set({
          approvers: JSON.stringify(routing.approvers),
          channels: JSON.stringify(routing.channels),
          updatedAt: at,
        })
        .where(and(eq(requests.id, id), eq(requests.status, 'pending')))
        .run();
      const escalated = { ...current, approvers: routing.approvers, channels: routing.channels, updatedAt: event.at };
      this.insertEvent(id, escalatedEvent(escalated, event));
      return escalated;
    });
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
