/**
 * @module stores/sqlite/request-writes
 * What `SqliteConfirmationStore` writes to a request: files it, records votes, cancels and expires it, escalates it
 * and appends its events. Every write runs in a `BEGIN IMMEDIATE` transaction whose events' receipt is signed last,
 * inside it (`witnessed-insert.ts`); the writes that file or settle a request are group-committed (`group-commit.ts`).
 * The steps of a verdict (flip, late expiry, verdict token) are `verdict-steps.ts`.
 */
import type Database from 'better-sqlite3';
import { and, eq } from 'drizzle-orm';
import type { ChainedRequestFields } from '../../audit/encoding.js';
import type { Witness } from '../../audit/witness.js';
import { witnessedApprovals, type ApprovalRow } from '../../audit/witnessed-approvals.js';
import { createdEvent, escalatedEvent } from '../../requests/coverage.js';
import type { CreateExtras, CreateResult, NewCard, Vote, VoteResult } from '../../requests/store.js';
import type { ChannelTarget, ConfirmationRequest, NewEvent } from '../../requests/types.js';
import { needsPriorApprovers, planVote } from '../../requests/vote-plan.js';
import { GroupCommit } from '../../utils/group-commit.js';
import { isoString } from '../../utils/iso-time.js';
import type { OpenDatabase } from './database.js';
import { requestOfValues, requestRowValues, requestToRow, rowToEvent } from './rows.js';
import { confirmationRequests as requests } from './schema.js';
import type { Statements, VoteState } from './statements.js';
import { expireLate, flip, mint, type VerdictStepContext } from './verdict-steps.js';
import { WitnessedEvents, chainedFieldsOf } from './witnessed-insert.js';

/** The request writes of the SQLite store; see the module comment. */
export class SqliteRequestWrites {
  private readonly witnessed: WitnessedEvents;
  private readonly steps: VerdictStepContext;
  /** One `BEGIN IMMEDIATE` wrapper for every transaction: better-sqlite3 builds five wrappers per `transaction()` call. */
  private readonly immediate: <T>(fn: () => T) => T;
  /**
   * Group commit (see `group-commit.ts`) of every write that settles or files a request: the creates, votes and cancels
   * of one event-loop turn are one `BEGIN IMMEDIATE` transaction, so one WAL write and, at the default FULL sync, one
   * fsync, instead of one each (a decision used to commit alone). Each write still reads and compares under the same
   * write lock, in the order the calls came, so a vote sees the create or vote queued before it.
   */
  private readonly writes = new GroupCommit((items: (() => unknown)[]) => this.tx(() => items.map((write) => write())));

  constructor(
    private readonly open: OpenDatabase,
    private readonly sql: Statements,
  ) {
    this.witnessed = new WitnessedEvents(open.sqlite);
    const insertToken = open.sqlite.prepare('INSERT INTO verdict_tokens (request_id, token) VALUES (?, ?)');
    this.steps = { sql, witnessed: this.witnessed, insertToken };
    this.immediate = open.sqlite.transaction((fn: () => unknown) => fn()).immediate as <T>(fn: () => T) => T;
  }

  /** Signs what is committed from now on (see `SqliteConfirmationStore.useWitness`). */
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

  /** The request a raw statement of whole requests (`statements.ts`) reads, if any. */
  private row(statement: Database.Statement, ...params: unknown[]): ConfirmationRequest | null {
    const values = statement.get(...params) as unknown[] | undefined;
    return values ? requestOfValues(values) : null;
  }

  /** The row `id`, read inside the caller's transaction, which has found it. */
  private whole(id: string): ConfirmationRequest {
    return this.row(this.sql.requestById, id)!;
  }

  /** Queues `write` for this turn's transaction (see {@link writes}); resolves with its result once it is committed. */
  private grouped<T>(write: () => T): Promise<T> {
    return this.writes.add(write) as Promise<T>;
  }

  /** Inside the caller's transaction, witnessed (`witnessed-insert.ts`). */
  private insertEvent(requestId: string, e: NewEvent, request?: ChainedRequestFields) {
    this.witnessed.run(requestId, e, request);
  }

  /** Committed with the other writes of this event-loop turn ({@link writes}). */
  create(request: ConfirmationRequest, cards: NewCard[], extras?: CreateExtras): Promise<CreateResult> {
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
    if (request.status !== 'pending') mint(this.steps, request);
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

  /**
   * Committed with the other writes of this event-loop turn ({@link writes}). Under the lock it reads only what a vote
   * is planned on (`voteState`): a settling vote gets its row whole from the flip's RETURNING; rarer outcomes read it.
   */
  decide(id: string, vote: Vote): Promise<VoteResult> {
    return this.grouped((): VoteResult => {
      const state = this.sql.voteState.get(id) as VoteState | undefined;
      if (!state) return { kind: 'not_found' };
      if (state.status !== 'pending') return { kind: 'already_final', request: this.whole(id) };
      // The deadline belongs to the row: a vote at or after it expires the request instead, whatever the timers did.
      if (Date.parse(state.expiresAt) <= vote.at.getTime())
        return { kind: 'expired', request: expireLate(this.steps, this.whole(id), vote.at) };
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
      const request = flip(
        this.steps,
        id,
        plan.status,
        state.onTimeout,
        { ...fields, approvedArgs: approvedArgs == null ? null : JSON.stringify(approvedArgs) },
        plan.approvals,
      );
      return { kind: 'final', request };
    });
  }

  /** Committed with the other writes of this event-loop turn ({@link writes}). */
  finish(
    id: string,
    status: 'expired' | 'cancelled',
    event: { actor: string | null; channel: string | null; detail: Record<string, unknown>; at: Date },
  ): Promise<ConfirmationRequest | null> {
    return this.grouped(() => {
      const current = this.row(this.sql.requestById, id);
      if (!current || current.status !== 'pending') return null;
      if (status === 'cancelled' && current.expiresAt.getTime() <= event.at.getTime())
        return expireLate(this.steps, current, event.at);
      const reason = typeof event.detail.reason === 'string' ? event.detail.reason : null;
      const final = flip(this.steps, id, status, current.onTimeout, {
        respondedBy: event.actor,
        respondedVia: event.channel,
        reason,
        at: event.at,
      });
      this.insertEvent(id, { type: status, ...event });
      return final;
    });
  }

  /** Expires up to `limit` rows due at `now`, oldest expiry first, in one transaction. */
  expireDue(now: Date, limit: number): ConfirmationRequest[] {
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
      for (const r of expired) mint(this.steps, r);
      return expired;
    });
  }

  /** One event, in a transaction of its own. */
  appendEvent(requestId: string, event: NewEvent): void {
    this.tx(() => this.insertEvent(requestId, event));
  }

  /** Routes a pending request to escalation step `step`'s approvers and channels, once. */
  escalate(
    id: string,
    step: number,
    routing: { approvers: string[]; channels: ChannelTarget[] },
    event: NewEvent,
  ): ConfirmationRequest | null {
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
}
